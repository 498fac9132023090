"""How much PHI a pipeline finds per passage language (a set of `[[LABEL|surface]]` sources,
meddocan_deid.evaluation.formats_set, whose folder is the language: `ca/ca_01.txt`).

Per language and label: the gold mentions, how many are wholly removed (every character but
blanks inside some predicted entity, whatever its label: what a de-identified text needs),
how many are found exactly (same span, same label), and the predicted entities that touch no
gold mention (spurious). Counts only, never text.
"""

from collections import Counter
from collections.abc import Iterable

from spacy.language import Language

from .formats_set import SourceDoc
from .number_words import wholly_covered


def score_languages(
    docs: Iterable[SourceDoc], predictions: dict[str, list[tuple[int, int, str]]]
) -> dict[str, dict[str, object]]:
    """language -> {"labels": {label: {"n", "removed", "exact"}}, "overall": {"n", "removed",
    "exact", "spurious", "docs"}}; `predictions`: doc id -> [(start, end, label)]."""
    out: dict[str, dict[str, object]] = {}
    counts: dict[str, dict[str, Counter]] = {}
    for doc in docs:
        lang = counts.setdefault(
            doc.doctype, {k: Counter() for k in ("n", "removed", "exact", "spurious", "docs")}
        )
        lang["docs"]["all"] += 1
        predicted = predictions.get(doc.doc_id, [])
        ranges = [(s, e) for s, e, _label in predicted]
        gold = set(doc.entities)
        for label, start, end in doc.entities:
            lang["n"][label] += 1
            lang["removed"][label] += wholly_covered(doc.text, start, end, ranges)
            lang["exact"][label] += (label, start, end) in {(lb, s, e) for s, e, lb in predicted}
        lang["spurious"]["all"] += sum(
            not any(s < g_end and g_start < e for _lb, g_start, g_end in gold)
            for s, e, _label in predicted
        )
    for language, c in sorted(counts.items()):
        labels = {
            label: {"n": c["n"][label], "removed": c["removed"][label], "exact": c["exact"][label]}
            for label in sorted(c["n"])
        }
        out[language] = {
            "labels": labels,
            "overall": {
                "n": sum(c["n"].values()),
                "removed": sum(c["removed"].values()),
                "exact": sum(c["exact"].values()),
                "spurious": c["spurious"]["all"],
                "docs": c["docs"]["all"],
            },
        }
    return out


def evaluate_languages(
    nlp: Language, docs: list[SourceDoc], *, batch_size: int = 16
) -> dict[str, dict[str, object]]:
    """Run `nlp` over the sources' texts and score its entities (score_languages)."""
    predictions = {
        doc.doc_id: [(e.start_char, e.end_char, e.label_) for e in parsed.ents]
        for doc, parsed in zip(docs, nlp.pipe((d.text for d in docs), batch_size=batch_size))
    }
    return score_languages(docs, predictions)
