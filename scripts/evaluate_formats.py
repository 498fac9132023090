"""Score a pipeline on the invented report-layout set (reports as hospitals write them).

    python scripts/evaluate_formats.py training/pipeline assets/formats \
        --output metrics/formats.json

Prints, per document type and for the whole set, strict subtask-1 P/R/F1, identifying-word
recall (capitalised or digit-bearing PHI words left fully covered) and over-redaction (the
share of non-PHI words removed), then strict P/R/F1 per label. Optionally at another
privacy level (`--privacy high`), or on the reports in lower case or in capitals (`--case
lower|upper`: same offsets, the original gold; identifying words are read from the original). Prints
numbers only, never report text.
"""

from pathlib import Path
from typing import Annotated

import spacy
import srsly
import typer

from meddocan_deid.brat import BratError
from meddocan_deid.evaluation.formats import evaluate_formats, read_set, table_rows
from meddocan_deid.evaluation.metrics import EvaluationError


def print_scores(scores: dict) -> None:
    typer.echo(
        f"{'document type':<22}{'docs':>5}{'gold':>6}{'P':>8}{'R':>8}{'F1':>8}"
        f"{'ident.R':>9}{'over-red.':>10}"
    )
    for name, n, gold, p, r, f, ident, over in table_rows(scores):
        typer.echo(
            f"{name:<22}{n:>5}{gold:>6}{p:>8.4f}{r:>8.4f}{f:>8.4f}{ident:>9.4f}{100 * over:>9.2f}%"
        )
    o = scores["overall"]
    typer.echo(
        f"identifying PHI words covered: {o['meddocan_phi_identifying_word_tp']}/"
        f"{o['meddocan_phi_identifying_word_n']}; non-PHI words removed: "
        f"{o['meddocan_over_redaction_removed']}/{o['meddocan_over_redaction_n']}"
    )
    typer.echo(f"{'label':<34}{'support':>8}{'P':>8}{'R':>8}{'F1':>8}{'fp':>6}{'fn':>6}")
    for label, row in sorted(scores["labels"].items(), key=lambda kv: -kv[1]["support"]):
        typer.echo(
            f"{label:<34}{row['support']:>8}{row['p']:>8.4f}{row['r']:>8.4f}{row['f']:>8.4f}"
            f"{row['fp']:>6}{row['fn']:>6}"
        )


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    set_dir: Annotated[Path, typer.Argument(help="The report-layout set folder (assets/formats)")],
    output: Annotated[Path | None, typer.Option(help="JSON file for every score")] = None,
    privacy: Annotated[
        str | None, typer.Option(help="Privacy level of the privacy component (balanced|high)")
    ] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 16,
    case: Annotated[
        str | None,
        typer.Option(help="Score the reports' lower or upper copies (same offsets, original gold)"),
    ] = None,
    limit: Annotated[
        int, typer.Option(help="Score only the first N reports by name (0: all; for quick runs)")
    ] = 0,
) -> None:
    if case not in (None, "lower", "upper"):
        typer.echo(f"--case {case!r}: expected lower or upper", err=True)
        raise typer.Exit(2)
    if not set_dir.is_dir():
        typer.echo(
            f"{set_dir}: no such folder (the report-layout set; build it with "
            "experiments/formats_set.py)",
            err=True,
        )
        raise typer.Exit(1)
    config = {"components": {"privacy": {"level": privacy}}} if privacy else {}
    try:
        nlp = spacy.load(model, config=config)
    except OSError as err:
        typer.echo(f"{model}: cannot load the pipeline ({err})", err=True)
        raise typer.Exit(1) from None
    try:
        docs = read_set(set_dir)
        scores = evaluate_formats(
            nlp, set_dir, batch_size=batch_size, case=case, docs=docs[:limit] if limit > 0 else docs
        )
    except (BratError, EvaluationError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    print_scores(scores)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(output, scores)
        typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
