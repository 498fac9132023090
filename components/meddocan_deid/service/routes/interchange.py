"""POST /deidentify/fhir and POST /deidentify/hl7v2 (token needed): a FHIR resource or Bundle
and HL7 v2 messages, de-identified by the rewriter of their format as the CLI does their files
(the engine's `interchange`)."""

import json
import logging

from fastapi import APIRouter, Depends, Security

from ...errors import ServiceError
from ..schemas import FhirRequest, FhirResponse, Hl7Request, Hl7Response
from .common import State, bearer, state, work

logger = logging.getLogger("meddocan_deid.service")
router = APIRouter(dependencies=[Security(bearer)])


def _no_known_phi(req) -> None:
    if req.known_phi is not None:  # the structured values are the texts' known identifiers
        raise ServiceError(
            422,
            "invalid_request",
            "known_phi is not taken with FHIR or HL7 v2: their structured values are the known "
            "identifiers of their texts",
            loc=("body", "known_phi"),
        )


def _inline_rules(req, key: str) -> None:
    if isinstance(req.policy, dict) and isinstance(req.policy.get(key), str):
        raise ServiceError(
            422,
            "invalid_request",
            "not accepted by the service: a request names no server file; give the rules "
            "inline (a list)",
            loc=("body", "policy", key),
        )


@router.post("/deidentify/fhir", response_model=FhirResponse)
async def post_deidentify_fhir(req: FhirRequest, s: State = Depends(state)):
    """De-identify a FHIR R4 resource or Bundle: structured elements by the rules, dates
    shifted by the patient's keyed offset, ids and references as keyed digests, free text
    through the pipeline with the patient's structured values as known PHI (a key is needed in
    every mode)."""
    engine = s.engine
    _no_known_phi(req)
    _inline_rules(req, "fhir_rules")
    options, _known, privacy = engine.options(req)
    mode = req.mode or s.settings.mode
    text = json.dumps(req.resource, ensure_ascii=False)
    out, report = await work(engine, engine.interchange, "fhir", text, mode, options, privacy)
    s.metrics.count("/deidentify/fhir", 1, report.phi_per_label)
    logger.info(
        "deidentify/fhir: %d values replaced, mode %s, privacy %s",
        sum(report.phi_per_label.values()),
        mode,
        privacy,
    )
    return FhirResponse(
        mode=mode, privacy=privacy, resource=json.loads(out), phi_per_label=report.phi_per_label
    )


@router.post("/deidentify/hl7v2", response_model=Hl7Response)
async def post_deidentify_hl7v2(req: Hl7Request, s: State = Depends(state)):
    """De-identify HL7 v2 messages: fields by the rules, OBX text and NTE comments through the
    pipeline with the message's PID and NK1 values as known PHI; segments, fields, encoding
    characters and escapes kept (a key is needed in every mode)."""
    engine = s.engine
    _no_known_phi(req)
    _inline_rules(req, "hl7_rules")
    options, _known, privacy = engine.options(req)
    mode = req.mode or s.settings.mode
    out, report = await work(
        engine, engine.interchange, "hl7v2", req.message, mode, options, privacy
    )
    s.metrics.count("/deidentify/hl7v2", 1, report.phi_per_label)
    logger.info(
        "deidentify/hl7v2: %d values replaced, mode %s, privacy %s",
        sum(report.phi_per_label.values()),
        mode,
        privacy,
    )
    return Hl7Response(mode=mode, privacy=privacy, message=out, phi_per_label=report.phi_per_label)
