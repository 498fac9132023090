"""The documents of a run read as page images (formats/scan.py): `ScanLog`, their OCR confidence
per page for the run report (a page below `review_below`, with no word recognised, or with more
than MAX_UNREAD_INK of its ink outside the words read, is flagged for review), and
`write_redacted`, each one's redacted copy in the output folder beside its `.txt`: `stem.pdf`
for a PDF, the image in its own format (`stem.png`, `stem.tif`...), pages as images only with a
box over every PHI word."""

import errno
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files import atomic_write
from ..formats import registry
from ..formats.base import DocumentError
from ..formats.scan import MAX_UNREAD_INK, Scan
from ..formats.scan_bytes import DEFAULT_REVIEW_BELOW, page_entries

MAX_REVIEW_LINES = 10


@dataclass
class ScanLog:
    """The scanned documents read by a run, each by id and file with its pages: where their
    text came from (ocr, text layer), their words, their mean word confidence and whether they
    are to be reviewed."""

    review_below: float = DEFAULT_REVIEW_BELOW
    documents: list[dict[str, Any]] = field(default_factory=list)

    def add(self, rid: str, where: str, scan: Scan) -> None:
        self.documents.append(
            {"id": rid, "file": where, "pages": page_entries(scan, self.review_below)}
        )

    def to_dict(self) -> dict[str, Any]:
        pages = [p for d in self.documents for p in d["pages"]]
        return {
            "review_below": self.review_below,
            "documents": len(self.documents),
            "pages": len(pages),
            "pages_ocr": sum(p["source"] == "ocr" for p in pages),
            "pages_to_review": sum(bool(p.get("review")) for p in pages),
            "read": self.documents,
        }


def review_lines(report: dict[str, Any]) -> list[str]:
    """Lines for stderr about the scanned pages flagged for review (file, page, confidence)."""
    scanned = report.get("scanned") or {}
    flagged = [
        (d["file"], p) for d in scanned.get("read", []) for p in d["pages"] if p.get("review")
    ]
    lines = [
        f"review: {where} page {p['page']}: {review_reason(p, scanned['review_below'])}"
        for where, p in flagged[:MAX_REVIEW_LINES]
    ]
    if len(flagged) > MAX_REVIEW_LINES:
        lines.append(
            f"... and {len(flagged) - MAX_REVIEW_LINES} more pages to review (see the run report)"
        )
    return lines


def review_reason(page: dict[str, Any], review_below: float) -> str:
    if page["confidence"] is None:
        return "no word recognised"
    reasons = []
    if page["confidence"] < review_below:
        reasons.append(f"OCR confidence {page['confidence']} below {review_below}")
    unread = page.get("unread_ink")
    if unread is not None and unread > MAX_UNREAD_INK:
        reasons.append(f"{unread:.0%} of its ink outside the words read")
    return "; ".join(reasons)


def redacted_path(output: Path, stem: str, source: Path) -> Path:
    base = Path(output) / stem
    return base.with_name(base.name + Path(source).suffix.lower())


def write_redacted(
    output: Path,
    stem: str,
    source: Path,
    document: str,
    digest: str,
    scan: Scan,
    replacements: Sequence,
) -> Path:
    """Write the redacted copy of `source` (a document of format `document`, read with digest
    `digest` into `scan`). Raises OSError (the runner fails the report by name) when the source
    changed since it was read or cannot be redacted."""
    data = Path(source).read_bytes()
    try:
        if hashlib.sha256(data).hexdigest() != digest:  # the boxes are those of the bytes read
            raise DocumentError(f"{Path(source).name} changed while it was being de-identified")
        writer = registry.get(document).write_redacted
        if writer is None:
            raise DocumentError(f"no redacted copy of .{document} documents")
        redacted = writer(data, scan, replacements)
    except DocumentError as err:
        raise OSError(errno.EINVAL, str(err)) from None
    target = redacted_path(output, stem, source)
    atomic_write(target, redacted)
    return target
