"""The score of each entity the Presidio recognizer and the REST `/analyze` give: its source's
(`presidio_entities.SOURCE_SCORES`), or for an entity of the NER its calibrated confidence when
the pipeline has `ent_confidence` (pipeline/ent_confidence.py)."""

from collections.abc import Mapping

from .pipeline.ent_confidence import entity_confidence
from .presidio_entities import SOURCE_SCORES, entity_sources

# (label, start, end, source, confidence): confidence None when the source's score applies
ScoredFound = tuple[str, int, int, str, float | None]


def scored_sources(doc) -> list[ScoredFound]:
    """`entity_sources(doc)` with the NER entities' calibrated confidence."""
    confidence = entity_confidence(doc)
    return [
        (label, start, end, source, confidence.get((start, end)) if source == "ner" else None)
        for label, start, end, source in entity_sources(doc)
    ]


def score_of(
    source: str, confidence: float | None, scores: Mapping[str, float] = SOURCE_SCORES
) -> float:
    return round(confidence, 4) if confidence is not None else scores[source]
