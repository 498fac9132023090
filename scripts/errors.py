"""Subtask-1 errors by type, with context, for error analysis.

    python scripts/errors.py MODEL corpus/dev.spacy reports/dev_errors.tsv

OUTPUT_FILE (TSV; keep it under the gitignored reports/) holds report text around each
false negative and false positive. The console gets counts only: per label, and per kind
of error (`ERROR_KINDS`: a missed or spurious entity, or one the other side has with other
boundaries, another label, or both).
Columns: label, kind (FN/FP), doc_id, start, end, left, span, right, other: the
annotations of the other side that overlap (e.g. the gold label of a mislabelled span).
"""
from collections import Counter
from pathlib import Path
from typing import Annotated, Iterable, List, Optional, Tuple

import spacy
import typer

from meddocan_deid.files import atomic_write
from meddocan_deid.evaluation.results import DocResult, run_model

COLUMNS = ("label", "kind", "doc_id", "start", "end", "left", "span", "right", "other")


def _clean(s: str) -> str:
    return s.replace("\t", " ").replace("\r", " ").replace("\n", " ⏎ ")


ERROR_KINDS = ("missed", "spurious", "boundaries", "label", "label and boundaries")


def error_kind(kind: str, label: str, start: int, end: int, overlap: Iterable[tuple]) -> str:
    """What separates an error from the other side's annotations that overlap it."""
    overlap = list(overlap)
    if not overlap:
        return "missed" if kind == "FN" else "spurious"
    if any((s, e) == (start, end) for _, s, e in overlap):
        return "label"
    if any(lab == label for lab, _, _ in overlap):
        return "boundaries"
    return "label and boundaries"


def error_rows(results: Iterable[DocResult], width: int = 40) -> Tuple[List[tuple], Counter]:
    """The error rows (COLUMNS), and their counts by (kind of error, FN/FP)."""
    rows = []
    kinds: Counter = Counter()
    for r in results:
        gold, system = set(r.gold), set(r.system)
        for kind, errors, other in (("FN", gold - system, system), ("FP", system - gold, gold)):
            for label, start, end in sorted(errors, key=lambda a: (a[1], a[2], a[0])):
                overlap = sorted(o for o in other if o[1] < end and start < o[2])
                kinds[error_kind(kind, label, start, end, overlap), kind] += 1
                rows.append((
                    label, kind, r.doc_id, start, end,
                    _clean(r.text[max(0, start - width):start]), _clean(r.text[start:end]),
                    _clean(r.text[end:end + width]),
                    " ".join(f"{lab}:{s}-{e}" for lab, s, e in overlap),
                ))
    rows.sort(key=lambda row: (row[0], row[1], row[2], row[3]))
    return rows, kinds


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[Path, typer.Argument(help="DocBin written by scripts/convert.py")],
    output_file: Annotated[Path, typer.Argument(help="TSV with the errors in context (contains report text)")],
    gold_brat: Annotated[Optional[Path], typer.Option(help="Take the gold from this BRAT folder")] = None,
    width: Annotated[int, typer.Option(help="Characters of context on each side")] = 40,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> Counter:
    nlp = spacy.load(model)
    results, _ = run_model(nlp, data_path, batch_size=batch_size, gold_brat=gold_brat)
    rows, kinds = error_rows(results, width)
    lines = ["\t".join(COLUMNS)] + ["\t".join(map(str, row)) for row in rows]
    atomic_write(output_file, "\n".join(lines) + "\n")
    counts = Counter((row[0], row[1]) for row in rows)
    labels = sorted({label for label, _ in counts})
    typer.echo(f"{'label':<36}{'FN':>6}{'FP':>6}")
    for label in labels:
        typer.echo(f"{label:<36}{counts[label, 'FN']:>6}{counts[label, 'FP']:>6}")
    fn = sum(v for (_, k), v in counts.items() if k == "FN")
    typer.echo(f"{'total':<36}{fn:>6}{len(rows) - fn:>6}")
    typer.echo(f"\n{'kind of error':<36}{'FN':>6}{'FP':>6}")
    for what in ERROR_KINDS:
        typer.echo(f"{what:<36}{kinds[what, 'FN']:>6}{kinds[what, 'FP']:>6}")
    typer.echo(f"-> {output_file} (contains report text: keep it out of git)")
    return counts


if __name__ == "__main__":
    typer.run(main)
