"""How much PHI a pipeline finds in passages of each language.

    python scripts/evaluate_languages.py training/pipeline tests/evaluation/cooficial_set

FOLDER holds `<lang>/<lang>_NN.txt` sources with their gold inline (`[[LABEL|surface]]`,
meddocan_deid.evaluation.formats_set). Prints per language (and with --labels per label) the
gold mentions, how many are wholly removed (by an entity of any label), how many are found
exactly (span and label) and the predicted entities that touch no gold mention. Numbers only,
never text.
"""

from pathlib import Path
from typing import Annotated

import spacy
import srsly
import typer

from meddocan_deid.errors import MarkupError
from meddocan_deid.evaluation.formats_set import read_sources
from meddocan_deid.evaluation.languages import evaluate_languages
from meddocan_deid.pipeline.rules_only import build_rule_pipeline


def print_scores(scores: dict, labels: bool) -> None:
    typer.echo(f"{'language / label':<36}{'mentions':>9}{'removed':>9}{'exact':>7}{'share':>8}")
    for language, result in scores.items():
        rows = list(result["labels"].items()) if labels else []
        for label, row in rows + [("all", result["overall"])]:
            share = row["removed"] / row["n"] if row["n"] else 0.0
            name = f"{language} {label}"
            typer.echo(f"{name:<36}{row['n']:>9}{row['removed']:>9}{row['exact']:>7}{share:>8.3f}")
        o = result["overall"]
        typer.echo(f"{language}: {o['spurious']} spurious entities in {o['docs']} documents")


def main(
    model: Annotated[
        str,
        typer.Argument(help="Pipeline path or package name; with --rules-only, a pipeline .cfg"),
    ],
    folder: Annotated[
        Path, typer.Argument(help="Folder of <lang>/<lang>_NN.txt sources with inline gold")
    ],
    labels: Annotated[bool, typer.Option(help="Print a row per label too")] = False,
    rules_only: Annotated[
        bool,
        typer.Option(help="MODEL is a config: build its rule part (patterns from its patterns/)"),
    ] = False,
    output: Annotated[Path | None, typer.Option(help="JSON file for the counts")] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 16,
) -> None:
    try:
        docs = read_sources(folder)
    except MarkupError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from err
    try:
        if rules_only:
            config = Path(model)
            nlp = build_rule_pipeline(config, config.parent / "patterns")
        else:
            nlp = spacy.load(model)
    except OSError as err:
        typer.echo(f"{model}: cannot load the pipeline ({err})", err=True)
        raise typer.Exit(1) from err
    scores = evaluate_languages(nlp, docs, batch_size=batch_size)
    print_scores(scores, labels)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(output, scores)
        typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
