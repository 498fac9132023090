"""POST /deidentify and POST /deidentify/table (token needed)."""

import logging

from fastapi import APIRouter, Depends, Request, Security

from ...audit.service import note, policy_digest
from ...errors import ServiceError
from ..engine import DeidRequest
from ..schemas import (
    DeidentifiedText,
    DeidentifyRequest,
    DeidentifyResponse,
    Failure,
    Replaced,
    TableRequest,
    TableResponse,
)
from .common import State, bearer, state, work

logger = logging.getLogger("meddocan_deid.service")
router = APIRouter(dependencies=[Security(bearer)])


@router.post("/deidentify", response_model=DeidentifyResponse, response_model_exclude_none=True)
async def post_deidentify(req: DeidentifyRequest, request: Request, s: State = Depends(state)):
    """De-identify `text` (or each of `texts`): the output and, per PHI entity, its label,
    its offsets in the original (`start`, `end`) and in the output (`new_start`, `new_end`)."""
    engine = s.engine
    mode = req.mode or s.settings.mode
    options, known, privacy = engine.options(req)
    note(request, mode=mode, privacy=privacy, policy_digest=policy_digest(req.policy))
    engine.check_key(mode, options)
    texts = [req.text] if req.text is not None else list(req.texts or ())
    settled = DeidRequest(mode, options, known, privacy, req.scope, req.patient_id)
    results = await work(engine, engine.deidentify, texts, settled, long=engine.is_long(texts))
    report = engine.texts_report(mode, results)
    s.metrics.count("/deidentify", report.counts["read"], report.phi_per_label)
    note(request, counts={"texts": report.counts["read"]}, phi_per_label=report.phi_per_label)
    logger.info(
        "deidentify: %d texts, %d entities, mode %s, privacy %s",
        report.counts["read"],
        sum(report.phi_per_label.values()),
        mode,
        privacy,
    )
    out = [
        DeidentifiedText(
            text=res.text, entities=[Replaced(**r._asdict()) for r in res.replacements]
        )
        for res in results
    ]
    if req.text is not None:
        return DeidentifyResponse(
            mode=mode, privacy=privacy, text=out[0].text, entities=out[0].entities
        )
    return DeidentifyResponse(mode=mode, privacy=privacy, results=out)


@router.post("/deidentify/table", response_model=TableResponse)
async def post_deidentify_table(req: TableRequest, request: Request, s: State = Depends(state)):
    """De-identify a table given as JSON rows, as the CLI does a table file: the text columns
    through the pipeline, each PHI column cell replaced with the same operator and key and
    fed to its row's texts and its patient's rows as a known identifier; the same rows in
    the same order with a status column. A failed row keeps its place with no text or PHI."""
    engine = s.engine
    if req.known_phi is not None:  # a table's known identifiers are its PHI columns
        raise ServiceError(
            422,
            "invalid_request",
            "known_phi is not taken with a table: give the identifiers as "
            "PHI columns (phi_columns)",
            loc=("body", "known_phi"),
        )
    options, _known, privacy = engine.options(req)
    mode = req.mode or s.settings.mode
    note(request, mode=mode, privacy=privacy, policy_digest=policy_digest(req.policy))
    engine.check_key(mode, options)
    rows, report = await work(engine, engine.table, req.rows, req.spec, mode, options, privacy)
    s.metrics.count("/deidentify/table", report.rows["read"], report.phi_per_label)
    note(request, counts=dict(report.rows), phi_per_label=dict(report.phi_per_label))
    logger.info(
        "deidentify/table: %d rows, %d failed, mode %s, privacy %s",
        report.rows["read"],
        report.rows["failed"],
        mode,
        privacy,
    )
    return TableResponse(
        mode=mode,
        privacy=privacy,
        rows=rows,
        failed=report.rows["failed"],
        failures=[Failure(**f) for f in report.to_dict()["failed"]],
    )
