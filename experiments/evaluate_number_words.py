"""How much of the PHI dictated in words a pipeline removes.

    python experiments/evaluate_number_words.py training/pipeline assets/number_words

FOLDER holds `<doctype>/<doctype>_NN.txt` sources with their gold inline (`[[LABEL|surface]]`,
meddocan_deid.evaluation.formats_set). For the gold mentions that hold a number word (`tres`,
`veintidós`, `mil`, `cero`...), prints per label and in all how many are wholly removed: every
character but blanks inside some predicted entity, of any label. Numbers only, never text.
"""

from pathlib import Path
from typing import Annotated

import spacy
import srsly
import typer

from meddocan_deid.errors import MarkupError
from meddocan_deid.evaluation.formats_set import read_sources
from meddocan_deid.evaluation.number_words import evaluate_number_words


def print_scores(scores: dict) -> None:
    typer.echo(f"{'label':<34}{'mentions':>9}{'removed':>9}{'share':>8}")
    rows = list(scores["labels"].items()) + [("all", scores["overall"])]
    for label, row in rows:
        share = row["removed"] / row["n"] if row["n"] else 0.0
        typer.echo(f"{label:<34}{row['n']:>9}{row['removed']:>9}{share:>8.4f}")
    o = scores["overall"]
    typer.echo(
        f"PHI in words wholly removed: {o['removed']}/{o['n']} mentions in {o['docs']} documents"
    )


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    folder: Annotated[
        Path, typer.Argument(help="Folder of <doctype>/<doctype>_NN.txt sources with inline gold")
    ],
    output: Annotated[Path | None, typer.Option(help="JSON file for the counts")] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 16,
) -> None:
    try:
        docs = read_sources(folder)
    except MarkupError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    try:
        nlp = spacy.load(model)
    except OSError as err:
        typer.echo(f"{model}: cannot load the pipeline ({err})", err=True)
        raise typer.Exit(1) from None
    scores = evaluate_number_words(nlp, docs, batch_size=batch_size)
    print_scores(scores)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(output, scores)
        typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
