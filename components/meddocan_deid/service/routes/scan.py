"""POST /deidentify/scan (token needed): a scanned PDF or image uploaded as multipart/form-data,
read by the readers a run uses (OCR with Tesseract's Spanish model, or a PDF's text layer:
formats/scan_bytes.py), its text de-identified by the service's Deidentifier, and answered as
JSON: the text, the entities, each page's OCR confidence and review flag as the run report
has them, and the redacted file (pages as images only, a box over every PHI word) in base64.

Multipart rather than base64 in JSON: it is how FastAPI and HTTP clients send a file
(`UploadFile`; `curl -F file=@scan.pdf`, `requests.post(files=...)`, /docs' file picker), with
no third more bytes to encode and decode. The answer is JSON, as every route's, so the
redacted file comes back in base64 beside the text. The other fields are form fields; the
policy and the known identifiers are JSON texts."""

import base64
import json
import logging
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Request, Security, UploadFile

from ...audit.service import note, policy_digest
from ...deid.operators import DeidResult
from ...errors import ServiceError
from ...formats.base import DocumentError
from ...formats.scan import Scan
from ...formats.scan_bytes import (
    DEFAULT_REVIEW_BELOW,
    ScanKind,
    page_count,
    page_entries,
    scan_kind,
)
from ..engine import DeidRequest, RequestFields
from ..schemas import Mode, Privacy, RedactedFile, Replaced, ScanPageRead, ScanResponse
from .common import State, bearer, state, work

logger = logging.getLogger("meddocan_deid.service")
router = APIRouter(dependencies=[Security(bearer)])


@dataclass(frozen=True)
class ScanForm:
    """The form fields of a scan request beside its file (see `post_deidentify_scan`)."""

    mode: str | None
    privacy: str | None
    policy: str | None  # JSON texts, parsed by `_settle`
    known_phi: str | None
    scope: str | None
    patient_id: str | None
    review_below: float


@dataclass(frozen=True)
class _Scanned:
    """A scan read and de-identified: its kind, what was read (pages, confidence), the
    de-identified text and the redacted file's bytes."""

    kind: ScanKind
    read: Scan
    result: DeidResult
    redacted: bytes


def _json_field(value: str | None, name: str) -> Any:
    """A form field holding JSON (an object), or None; 422 naming the field."""
    if value is None or not value.strip():
        return None
    try:
        parsed = json.loads(value)
    except ValueError as err:
        raise ServiceError(
            422,
            "invalid_request",
            f"not valid JSON (line {getattr(err, 'lineno', 1)})",
            loc=("body", name),
        ) from None
    if not isinstance(parsed, dict):
        raise ServiceError(422, "invalid_request", "expected a JSON object", loc=("body", name))
    return parsed


@router.post("/deidentify/scan", response_model=ScanResponse)
async def post_deidentify_scan(
    request: Request,
    file: Annotated[
        UploadFile,
        File(description="A scanned PDF (or a PDF with a text layer), PNG, JPEG or TIFF."),
    ],
    mode: Annotated[Mode | None, Form(description="tag, mask, redact or surrogate.")] = None,
    privacy: Annotated[Privacy | None, Form(description="balanced or high.")] = None,
    policy: Annotated[
        str | None, Form(description="A policy as JSON, as in a policy file.")
    ] = None,
    known_phi: Annotated[
        str | None, Form(description="Label -> strings known for the patient, as JSON.")
    ] = None,
    scope: Annotated[
        str | None, Form(description="Surrogates are consistent within a scope (report id).")
    ] = None,
    patient_id: Annotated[
        str | None, Form(description="Surrogates are consistent for a patient.")
    ] = None,
    review_below: Annotated[
        float,
        Form(ge=0, le=100, description="OCR confidence (0-100) under which a page is flagged."),
    ] = DEFAULT_REVIEW_BELOW,
    s: State = Depends(state),
):
    """De-identify a scanned document: the text read by OCR (Tesseract's Spanish model) or from
    a PDF's text layer, de-identified; each page's OCR confidence and review flag; and the
    redacted file, base64, its pages as images only with a black box over every PHI word (413
    over the server's size or page limit, 415 for a file that is no PDF or image, 422 for one
    that cannot be read, 501 when the server has no OCR)."""
    form = ScanForm(mode, privacy, policy, known_phi, scope, patient_id, review_below)
    settled = _settle(request, s, form)
    data = await file.read()
    kind = _checked_kind(data, s.settings.max_scan_pages)
    # the long lane: seconds of OCR never hold up the ordinary requests' thread
    read, result, redacted = await work(s.engine, s.engine.scan, data, kind, settled, long=True)
    return _answer(request, s, form, settled, _Scanned(kind, read, result, redacted))


def _settle(request: Request, s: State, form: ScanForm) -> DeidRequest:
    """The request's mode, options, known identifiers, privacy level, scope and patient, noted
    in its audit record; 422 for a policy or known_phi field that is no JSON object, as
    /deidentify for a bad policy or a missing key."""
    engine = s.engine
    req = RequestFields(
        policy=_json_field(form.policy, "policy"),
        known_phi=_json_field(form.known_phi, "known_phi"),
        privacy=form.privacy,
    )
    options, known, level = engine.options(req)
    mode = form.mode or s.settings.mode
    note(request, mode=mode, privacy=level, policy_digest=policy_digest(req.policy))
    engine.check_key(mode, options)
    return DeidRequest(mode, options, known, level, form.scope, form.patient_id)


def _checked_kind(data: bytes, max_pages: int) -> ScanKind:
    """The kind of an uploaded file: 415 for a file that is no PDF or image, 422 for one whose
    pages cannot be counted, 413 over `max_pages` (501 for a file that needs OCR on a server
    without it comes from the reading: a PDF with a text layer needs none)."""
    try:
        kind = scan_kind(data)
    except DocumentError as err:
        raise ServiceError(415, "unsupported_type", f"file: {err}") from None
    try:
        pages = page_count(data, kind)
    except DocumentError as err:
        raise ServiceError(422, "invalid_request", str(err), loc=("body", "file")) from None
    if pages > max_pages:
        raise ServiceError(
            413,
            "too_large",
            f"file: {pages} pages, over the limit of {max_pages} a request",
        )
    return kind


def _answer(
    request: Request, s: State, form: ScanForm, settled: DeidRequest, scanned: _Scanned
) -> ScanResponse:
    """The answer to a scan read and de-identified, counted in the metrics, the audit record
    and the log (counts only, never text)."""
    result, mode, level = scanned.result, settled.mode, settled.privacy
    per_label: dict[str, int] = {}
    for r in result.replacements:
        per_label[r.label] = per_label.get(r.label, 0) + 1
    entries = page_entries(scanned.read, form.review_below)
    flagged = sum(bool(p.get("review")) for p in entries)
    s.metrics.count("/deidentify/scan", 1, per_label)
    note(
        request, counts={"pages": len(entries), "pages_to_review": flagged}, phi_per_label=per_label
    )
    logger.info(
        "deidentify/scan: %d pages (%d to review), %d entities, mode %s, privacy %s",
        len(entries),
        flagged,
        len(result.replacements),
        mode,
        level,
    )
    return ScanResponse(
        mode=mode,
        privacy=level,
        text=result.text,
        entities=[Replaced(**r._asdict()) for r in result.replacements],
        format=scanned.kind.format,
        review_below=form.review_below,
        pages=[ScanPageRead(**p) for p in entries],
        pages_to_review=flagged,
        redacted=RedactedFile(
            media_type=scanned.kind.media_type,
            data=base64.b64encode(scanned.redacted).decode("ascii"),
        ),
    )
