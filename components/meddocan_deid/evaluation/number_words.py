"""How much of the PHI dictated in words a pipeline removes (a set of `[[LABEL|surface]]`
sources, meddocan_deid.evaluation.formats_set).

The gold mentions that hold a number word (`tres`, `veintidós`, `mil`, `cero`: the list of
meddocan_deid.number_words) are counted per label and in all, with how many of them are
wholly removed: every character but blanks inside some predicted entity, whatever its
label (what a de-identified text needs; the strict scores are evaluate_formats'). Counts
only, never text.
"""

from collections import Counter
from collections.abc import Iterable
from typing import Any

from spacy.language import Language

from ..number_words import has_number_word
from .formats_set import SourceDoc


def wholly_covered(text: str, start: int, end: int, predicted: Iterable[tuple[int, int]]) -> bool:
    """Every non-blank character of text[start:end] lies in one of the `predicted` ranges."""
    covered: set[int] = set()
    for s, e in predicted:
        if s < end and start < e:
            covered.update(range(max(s, start), min(e, end)))
    return all(i in covered for i in range(start, end) if not text[i].isspace())


def score_number_words(
    docs: list[SourceDoc], predictions: dict[str, list[tuple[int, int]]]
) -> dict[str, Any]:
    """{"labels": {label: {"n", "removed"}}, "overall": {"n", "removed", "docs"}} over the gold
    mentions with a number word; `predictions`: doc id -> [(start, end)] of the entities."""
    n: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    for doc in docs:
        for label, start, end in doc.entities:
            if not has_number_word(doc.text[start:end]):
                continue
            n[label] += 1
            removed[label] += wholly_covered(doc.text, start, end, predictions.get(doc.doc_id, []))
    labels = {label: {"n": n[label], "removed": removed[label]} for label in sorted(n)}
    return {
        "labels": labels,
        "overall": {"n": sum(n.values()), "removed": sum(removed.values()), "docs": len(docs)},
    }


def evaluate_number_words(
    nlp: Language, docs: list[SourceDoc], *, batch_size: int = 16
) -> dict[str, Any]:
    """Run `nlp` over the sources' texts and score its entities (score_number_words)."""
    predictions = {
        doc.doc_id: [(e.start_char, e.end_char) for e in parsed.ents]
        for doc, parsed in zip(docs, nlp.pipe((d.text for d in docs), batch_size=batch_size))
    }
    return score_number_words(docs, predictions)
