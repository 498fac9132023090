"""POST /analyze (token needed): the entities without changing the text, natively or as
Presidio analyzer's answer."""

import logging
from typing import NamedTuple

from fastapi import APIRouter, Depends, Query, Request, Security

from ...audit.service import note, policy_digest
from ...entity_scores import score_of
from ...presidio_entities import (
    RECOGNIZER_NAME,
    allowed_mask,
    explanation_text,
    presidio_entity,
    result_naming,
    wanted,
)
from ..schemas import AnalyzeRequest, AnalyzeResponse, Entity, PresidioExplanation, PresidioResult
from .common import State, bearer, state, work

logger = logging.getLogger("meddocan_deid.service")
router = APIRouter(dependencies=[Security(bearer)])
# the time all allow_list regexes of one request may take (Presidio's own limit is 60 s a
# regex): past it the entities not checked stay reported
ALLOW_LIST_SECONDS = 1.0


class Scored(NamedTuple):
    label: str
    name: str  # Presidio's
    start: int
    end: int
    source: str
    score: float


def scored(engine, req: AnalyzeRequest, options, known, privacy: str, deadline=None):
    """The request's entities, scored by source, after Presidio's filters in its order:
    `entities`, `score_threshold`, then `allow_list` (in the lane: the regexes take the
    request's time, not the event loop's)."""
    results = []
    for label, start, end, source, confidence in engine.analyze(
        req.text, options, known, privacy, deadline=deadline
    ):
        name, score = presidio_entity(label, req.text[start:end]), score_of(source, confidence)
        if wanted(label, name, req.entities) and (
            req.score_threshold is None or score >= req.score_threshold
        ):
            results.append(Scored(label, name, start, end, source, score))
    if req.allow_list:
        allowed = allowed_mask(
            req.text,
            [(r.start, r.end) for r in results],
            req.allow_list,
            req.allow_list_match,
            req.regex_flags,
            timeout=ALLOW_LIST_SECONDS,
        )
        results = [r for r, skip in zip(results, allowed) if not skip]
    return results


def presidio_results(req: AnalyzeRequest, results) -> list:
    """Presidio analyzer's list of `{entity_type, start, end, score}` (and its explanation)."""
    naming = result_naming(req.entities, req.entity_names)
    out = []
    for r in results:
        explanation = PresidioExplanation(
            recognizer=RECOGNIZER_NAME,
            pattern_name=r.source,
            original_score=r.score,
            score=r.score,
            textual_explanation=explanation_text(r.label, r.name, r.source),
            validation_result=True if r.source == "checked_identifier" else None,
        )
        item = PresidioResult(
            entity_type=r.name if naming == "presidio" else r.label,
            start=r.start,
            end=r.end,
            score=r.score,
            analysis_explanation=explanation if req.return_decision_process else None,
        )
        # without return_decision_process the four fields only, as before
        out.append(
            item.model_dump(
                exclude={"analysis_explanation"} if item.analysis_explanation is None else set()
            )
        )
    return out


@router.post(
    "/analyze",
    responses={
        200: {
            "description": "AnalyzeResponse, or with Presidio's body or "
            "format=presidio a list of PresidioResult"
        }
    },
)
async def post_analyze(
    req: AnalyzeRequest,
    request: Request,
    format: str | None = Query(
        None, pattern="^(native|presidio)$", description="presidio: Presidio analyzer's list"
    ),
    s: State = Depends(state),
):
    """The PHI entities of `text` (after the policy and known identifiers), without changing it.
    With `?format=presidio`, `"format": "presidio"` or Presidio's body (`text`, `language`) the
    answer is Presidio analyzer's list of `{entity_type, start, end, score}`: Presidio entity
    names (MEDDOCAN labels when only those were requested, or by `entity_names`), scores by the
    component that found each entity (docs/presidio.md), `analysis_explanation` with
    `return_decision_process`. `entities`, `score_threshold` and `allow_list` filter both
    answers."""
    engine = s.engine
    options, known, privacy = engine.options(req)
    note(request, privacy=privacy, policy_digest=policy_digest(req.policy))
    results = await work(
        engine, scored, engine, req, options, known, privacy, long=engine.is_long([req.text])
    )
    s.metrics.count("/analyze", 1, [r.label for r in results])
    note(request, counts={"texts": 1, "entities": len(results)})
    logger.info("analyze: 1 text, %d entities, privacy %s", len(results), privacy)
    fmt = format or req.format or ("presidio" if req.language is not None else "native")
    if fmt == "presidio":
        return presidio_results(req, results)
    return AnalyzeResponse(
        privacy=privacy, entities=[Entity(label=r.label, start=r.start, end=r.end) for r in results]
    )
