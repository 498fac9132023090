"""Evaluate a pipeline with the MEDDOCAN metrics (official-style subtask 1, leak,
subtask 2 strict and merged).

    python scripts/evaluate.py MODEL corpus --output-dir metrics
    python scripts/evaluate.py MODEL corpus/dev.spacy --output-dir metrics

DATA_PATH is a DocBin written by scripts/convert.py, or the corpus folder: then every
split but the training data (train.spacy, train_aug.spacy) is evaluated (dev, and test when
present). For each split it writes `<split><suffix>.json` and a per-type Markdown table
`<split><suffix>_per_type.md`. Prints numbers only, never report text.
"""

from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.evaluation.metrics import EvaluationError
from meddocan_deid.evaluation.reports import evaluate_model


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[
        Path, typer.Argument(help="DocBin written by scripts/convert.py, or the corpus folder")
    ],
    output_dir: Annotated[
        Path, typer.Option(help="Folder for <split>.json and <split>_per_type.md")
    ] = Path("metrics"),
    suffix: Annotated[
        str, typer.Option(help="Appended to the output file names, e.g. _package")
    ] = "",
    gold_brat: Annotated[
        Path | None, typer.Option(help="Take the gold from this BRAT folder")
    ] = None,
    sentences: Annotated[
        Path | None, typer.Option(help="Official sentence files (ID.ann) for the leak")
    ] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
    privacy: Annotated[
        str | None, typer.Option(help="Privacy level: balanced or high (default: as saved)")
    ] = None,
) -> None:
    try:
        evaluate_model(
            model, data_path, output_dir, suffix, gold_brat, sentences, batch_size, privacy
        )
    except (EvaluationError, ValueError) as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None


if __name__ == "__main__":
    typer.run(main)
