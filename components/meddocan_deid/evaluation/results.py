"""Shared evaluation plumbing: gold/system/sentences per report, from spaCy docs.

Used by the spaCy scorer (`scorer.py`, from Examples) and by `scripts/evaluate.py`,
`scripts/export_brat.py` and `scripts/errors.py` (from a model run over a DocBin written
by `scripts/convert.py`, whose docs carry `user_data`: `meddocan_id`, `meddocan_gold`
[[label, start, end], ...] and `meddocan_n_sentences`).

Nothing here prints or raises with report text: messages name documents and problems.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, DocBin

from ..brat import Annotation, read_brat_dir
from .metrics import EvaluationError, count_sentences, evaluate, leak, privacy_scores

GOLD_KEY = "meddocan_gold"
ID_KEY = "meddocan_id"
SENTENCES_KEY = "meddocan_n_sentences"


@dataclass
class DocResult:
    doc_id: str
    text: str
    gold: list[Annotation]
    system: list[Annotation]
    n_sentences: int | None  # from the official sentence files, None when unknown
    n_sentences_pipeline: int  # the pipeline's own count (doc.sents, else non-empty lines)


def gold_annotations(reference: Doc) -> list[Annotation]:
    """The full gold of a converted doc (user_data), else the reference entities."""
    gold = reference.user_data.get(GOLD_KEY)
    if gold is not None:
        return [(str(label), int(start), int(end)) for label, start, end in gold]
    return [(e.label_, e.start_char, e.end_char) for e in reference.ents]


def system_annotations(predicted: Doc) -> list[Annotation]:
    return [(e.label_, e.start_char, e.end_char) for e in predicted.ents]


def pipeline_sentence_count(doc: Doc) -> int:
    """Sentences as the pipeline sees them: doc.sents when it has boundaries, else non-empty
    lines. Sentences of whitespace only (a trailing newline) do not count."""
    if len(doc) and doc.has_annotation("SENT_START"):
        return sum(1 for sent in doc.sents if sent.text.strip())
    return sum(1 for line in doc.text.splitlines() if line.strip())


def doc_result(reference: Doc, predicted: Doc, fallback_id: str) -> DocResult:
    if predicted.text != reference.text:
        raise EvaluationError(
            f"{reference.user_data.get(ID_KEY, fallback_id)}: predicted text differs from the "
            "reference text"
        )
    n = reference.user_data.get(SENTENCES_KEY)
    return DocResult(
        doc_id=str(reference.user_data.get(ID_KEY, fallback_id)),
        text=reference.text,
        gold=gold_annotations(reference),
        system=system_annotations(predicted),
        n_sentences=int(n) if n is not None else None,
        n_sentences_pipeline=pipeline_sentence_count(predicted),
    )


def make_unique(results: list[DocResult]) -> list[DocResult]:
    """Suffix repeated ids (`ID#2`) so that no document silently replaces another."""
    seen: dict[str, int] = {}
    for r in results:
        seen[r.doc_id] = seen.get(r.doc_id, 0) + 1
        if seen[r.doc_id] > 1:
            r.doc_id = f"{r.doc_id}#{seen[r.doc_id]}"
    return results


def sentence_source(results: Sequence[DocResult]) -> str:
    """ "official" when every document has an official sentence count, else "pipeline"."""
    return "official" if results and all(r.n_sentences is not None for r in results) else "pipeline"


def score_results(results: Sequence[DocResult]) -> dict[str, Any]:
    """metrics.evaluate over the results, with the leak from the official sentence counts
    (`meddocan_s1_leak`) or, when any report lacks one, from the pipeline's own sentences
    (`meddocan_s1_leak_pipeline`, never under the official key)."""
    gold, system, sentences = as_mapping(results)
    if len(gold) != len(results):
        raise EvaluationError("repeated document ids; call make_unique first")
    scores = evaluate(gold, system, sentences)
    scores.update(
        privacy_scores(
            {r.doc_id: r.text for r in results}, {r.doc_id: r.gold for r in results}, system
        )
    )
    if sentences is not None:
        return scores
    n_pipeline = sum(r.n_sentences_pipeline for r in results)
    scores["meddocan_s1_leak_pipeline"] = leak(scores["meddocan_s1_fn"], n_pipeline)
    scores["meddocan_n_sentences_pipeline"] = n_pipeline
    return scores


def read_docbin(nlp: Language, path: Path) -> list[Doc]:
    path = Path(path)
    if not path.is_file():
        raise EvaluationError(f"{path}: no such DocBin")
    return list(DocBin().from_disk(path).get_docs(nlp.vocab))


def run_model(
    nlp: Language,
    data_path: Path,
    *,
    batch_size: int = 32,
    gold_brat: Path | None = None,
    sentences_dir: Path | None = None,
) -> tuple[list[DocResult], dict[str, float]]:
    """Run `nlp` over the texts of a converted DocBin and pair each prediction with its gold.

    gold_brat: take the gold from this BRAT folder instead of `user_data` (texts must match).
    sentences_dir: official sentence files (ID.ann) that replace the counts in `user_data`.
    Returns the per-report results and speed stats (docs, words, seconds, words_per_second).
    """
    references = read_docbin(nlp, data_path)
    start = time.perf_counter()
    predicted = list(nlp.pipe((d.text for d in references), batch_size=batch_size))
    seconds = time.perf_counter() - start
    results = make_unique(
        [doc_result(ref, pred, str(i)) for i, (ref, pred) in enumerate(zip(references, predicted))]
    )
    if gold_brat is not None:
        brat = {d.doc_id: d for d in read_brat_dir(gold_brat)}
        for r in results:
            if r.doc_id not in brat:
                raise EvaluationError(f"{gold_brat}: no BRAT file for document {r.doc_id}")
            if brat[r.doc_id].text != r.text:
                raise EvaluationError(
                    f"{gold_brat}: text of {r.doc_id} differs from the DocBin text"
                )
            r.gold = list(brat[r.doc_id].entities)
    if sentences_dir is not None:
        counts = count_sentences(sentences_dir, [r.doc_id for r in results])
        for r in results:
            r.n_sentences = counts[r.doc_id]
    words = sum(len(d) for d in predicted)
    stats = {
        "docs": len(results),
        "words": words,
        "seconds": seconds,
        "words_per_second": words / seconds if seconds > 0 else 0.0,
    }
    return results, stats


def summary_rows(scores: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(metric, P, R, F1) rows of the headline numbers, formatted as percentages."""
    rows = []
    for name, prefix in (
        ("subtask 1 (NER)", "meddocan_s1"),
        ("subtask 2 strict", "meddocan_s2_strict"),
        ("subtask 2 merged", "meddocan_s2_merged"),
    ):
        p, r, f = (f"{100 * scores[f'{prefix}_{k}']:.2f}" for k in ("p", "r", "f"))
        rows.append((name, p, r, f))
    return rows


def per_type_markdown(scores: dict[str, Any]) -> str:
    """Markdown table of the subtask-1 scores by type: label, support, P, R, F1 (percent)."""
    lines = ["| label | support | P | R | F1 |", "| --- | ---: | ---: | ---: | ---: |"]
    table = scores["meddocan_s1_per_type"]
    for label in sorted(table, key=lambda lab: (-table[lab]["support"], lab)):
        row = table[label]
        lines.append(
            f"| {label} | {row['support']} | {100 * row['p']:.2f} | {100 * row['r']:.2f} | "
            f"{100 * row['f']:.2f} |"
        )
    lines.append(
        f"| **micro** | {scores['meddocan_s1_tp'] + scores['meddocan_s1_fn']} | "
        f"{100 * scores['meddocan_s1_p']:.2f} | {100 * scores['meddocan_s1_r']:.2f} | "
        f"{100 * scores['meddocan_s1_f']:.2f} |"
    )
    return "\n".join(lines) + "\n"


def as_mapping(results: Iterable[DocResult]):
    """(gold, system, sentences-or-None) mappings for metrics.evaluate."""
    results = list(results)
    gold = {r.doc_id: (r.text, r.gold) for r in results}
    system = {r.doc_id: r.system for r in results}
    sentences = (
        {r.doc_id: r.n_sentences for r in results}
        if sentence_source(results) == "official"
        else None
    )
    return gold, system, sentences
