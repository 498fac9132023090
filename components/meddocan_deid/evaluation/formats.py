"""Score a pipeline on the invented set of hospital report layouts (`assets/formats/`).

The set is BRAT (`<doctype>_<NN>.txt` + `.ann`, built from `assets/formats/source/` by
`experiments/formats_set.py`); the document type is the file name without its number. Per
document type and over the whole set: strict subtask-1 P/R/F1 (`metrics.evaluate`, the
code of `scripts/evaluate.py`), identifying-word recall and over-redaction
(`metrics.privacy_scores`), and the same strict scores per label. Counts only, never text.
"""

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from spacy.language import Language

from ..brat import BratDocument, BratError, read_brat_dir
from ..text_variants import variant
from .metrics import evaluate, privacy_scores
from .results import system_annotations

_NUMBER = re.compile(r"_\d+$")
KEYS = (
    "meddocan_s1_p",
    "meddocan_s1_r",
    "meddocan_s1_f",
    "meddocan_s1_tp",
    "meddocan_s1_fp",
    "meddocan_s1_fn",
)


def doc_type(doc_id: str) -> str:
    """`informe_alta_07` -> `informe_alta`."""
    return _NUMBER.sub("", doc_id)


def read_set(folder: Path) -> list[BratDocument]:
    docs = list(read_brat_dir(folder))
    if not docs:
        raise BratError(
            f"{folder}: no .txt reports (build the set with experiments/formats_set.py build)"
        )
    return docs


def score(docs: Iterable[BratDocument], predictions: dict[str, list]) -> dict[str, Any]:
    """Scores of `predictions` (doc id -> [(label, start, end)]) against the documents' gold:
    {"overall": {...}, "types": {doc type: {...}}, "labels": {label: {p, r, f, support...}}}."""
    docs = list(docs)
    groups: dict[str, list[BratDocument]] = defaultdict(list)
    for doc in docs:
        groups[doc_type(doc.doc_id)].append(doc)

    def block(members: list[BratDocument]) -> dict[str, Any]:
        gold = {d.doc_id: (d.text, d.entities) for d in members}
        system = {d.doc_id: predictions.get(d.doc_id, []) for d in members}
        strict = evaluate(gold, system)
        privacy = privacy_scores(
            {d.doc_id: d.text for d in members}, {d.doc_id: d.entities for d in members}, system
        )
        row = {key: strict[key] for key in KEYS}
        row.update(privacy)
        row["n_docs"] = len(members)
        row["n_gold"] = sum(len(d.entities) for d in members)
        row["per_type"] = strict["meddocan_s1_per_type"]
        return row

    overall = block(docs)
    labels = overall.pop("per_type")
    types = {}
    for name in sorted(groups):
        row = block(groups[name])
        row.pop("per_type")
        types[name] = row
    return {"overall": overall, "types": types, "labels": labels}


def evaluate_formats(
    nlp: Language,
    folder: Path,
    *,
    batch_size: int = 16,
    docs: list[BratDocument] | None = None,
    case: str | None = None,
) -> dict[str, Any]:
    """Run `nlp` over the set's reports and score its `doc.ents`. `case`: run it on the
    reports' `lower` or `upper` copies (meddocan_deid.text_variants, same offsets) and score
    against the original gold, which words are identifying read from the original text."""
    docs = docs if docs is not None else read_set(Path(folder))
    texts = [d.text for d in docs]
    if case is not None:
        texts = [variant(t, case) for t in texts]
    predictions = {}
    for brat, doc in zip(docs, nlp.pipe(texts, batch_size=batch_size)):
        predictions[brat.doc_id] = system_annotations(doc)
    return score(docs, predictions)


def table_rows(scores: dict[str, Any]):
    """(name, docs, gold, P, R, F1, identifying-word recall, over-redaction) per document
    type, then the whole set."""

    def row(name, r):
        return (
            name,
            r["n_docs"],
            r["n_gold"],
            r["meddocan_s1_p"],
            r["meddocan_s1_r"],
            r["meddocan_s1_f"],
            r["meddocan_phi_identifying_word_recall"],
            r["meddocan_over_redaction"],
        )

    rows = [row(name, r) for name, r in scores["types"].items()]
    rows.append(row("all", scores["overall"]))
    return rows
