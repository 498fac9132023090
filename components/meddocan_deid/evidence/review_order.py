"""The review order of a sample: the least certain reports first, so that a reviewer short of
time looks where PHI is likeliest to be left.

The sampled originals go through the pipeline once more; each report gets the calibrated
confidence of its found spans (`ent_confidence`, by offsets; a span the NER did not find has
none) and the NER's near misses (tokens it almost took). A report's uncertainty is the larger
of 1 - its least confident span and its likeliest near miss; ties keep the random order.
"""

from collections.abc import Callable

from spacy.language import Language

from ..pipeline.ent_confidence import NEAR_MISSES_KEY, entity_confidence
from .sampling import SampledReport


def uncertainty(report: SampledReport) -> float:
    known = [s for s in report.scores if s is not None]
    least = 1.0 - min(known) if known else 0.0
    near = max((p for *_, p in report.near), default=0.0)
    return max(least, near)


def confidence_order(
    nlp: Language,
) -> Callable[[list[SampledReport], dict[str, str]], list[SampledReport]]:
    """An `order` for `write_sample`: the reports scored by `nlp`, least certain first."""

    def order(sampled: list[SampledReport], texts: dict[str, str]) -> list[SampledReport]:
        for report, doc in zip(sampled, nlp.pipe(texts[r.id] for r in sampled)):
            confidence = entity_confidence(doc)
            report.scores = [confidence.get((s, e)) for _, s, e in report.detected]
            near = doc.spans.get(NEAR_MISSES_KEY)
            probs = near.attrs.get("probs", []) if near is not None else []
            report.near = [
                (span.label_, span.start_char, span.end_char, round(float(p), 4))
                for span, p in zip(near or [], probs)
            ]
        return sorted(sampled, key=uncertainty, reverse=True)

    return order
