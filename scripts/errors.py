"""Subtask-1 errors by type, with context, for error analysis.

    python scripts/errors.py MODEL corpus/dev.spacy reports/dev_errors.tsv

OUTPUT_FILE (TSV; keep it under the gitignored reports/) holds report text around each
false negative and false positive. The console gets counts only: per label, and per kind
of error (`ERROR_KINDS`: a missed or spurious entity, or one the other side has with other
boundaries, another label, or both).
Columns: label, kind (FN/FP), doc_id, start, end, left, span, right, other: the
annotations of the other side that overlap (e.g. the gold label of a mislabelled span).
"""

from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.evaluation.reports import write_errors


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[Path, typer.Argument(help="DocBin written by scripts/convert.py")],
    output_file: Annotated[
        Path, typer.Argument(help="TSV with the errors in context (contains report text)")
    ],
    gold_brat: Annotated[
        Path | None, typer.Option(help="Take the gold from this BRAT folder")
    ] = None,
    width: Annotated[int, typer.Option(help="Characters of context on each side")] = 40,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> None:
    write_errors(
        model, data_path, output_file, gold_brat=gold_brat, width=width, batch_size=batch_size
    )


if __name__ == "__main__":
    typer.run(main)
