"""Score a pipeline on the identifier evaluation set (identifiers MEDDOCAN lacks).

    python scripts/evaluate_identifiers.py training/pipeline assets/identifiers \
        --output metrics/identifiers.json

Prints, per identifier kind, how many gold values the pipeline found exactly (any label)
and how many it covered (every character inside predicted entities), the precision per
identifier label, and the look-alike numbers (lab values, doses...) it tagged (target 0):
in all, per type that it tagged, and those written in an identifier's shape with a failing
check and no key, per kind they imitate.
Writes every count to the JSON output. Prints numbers only, never report text.
"""

from pathlib import Path
from typing import Annotated

import spacy
import srsly
import typer

from meddocan_deid.brat import BratError
from meddocan_deid.evaluation.identifiers import evaluate_identifiers, table_rows
from meddocan_deid.evaluation.metrics import EvaluationError


def print_scores(scores: dict) -> None:
    header = ("kind", "n", "found", "covered", "recall", "covered%")
    typer.echo(f"{header[0]:<16}" + "".join(f"{h:>10}" for h in header[1:]))
    for row in table_rows(scores):
        typer.echo(f"{row[0]:<16}" + "".join(f"{cell:>10}" for cell in row[1:]))
    overall = scores["overall"]
    typer.echo(
        f"overall recall (exact span): {100 * overall['recall']:.1f}%, with the gold label: "
        f"{100 * overall['recall_label']:.1f}%, covered: {100 * overall['covered_rate']:.1f}%"
    )
    for name, row in scores["sections"].items():
        typer.echo(
            f"  {name:<8} n={row['n']:<5} recall {100 * row['recall']:.1f}%  covered "
            f"{100 * row['covered_rate']:.1f}%"
        )
    bad = scores["invalid_checksum"]
    typer.echo(
        f"keyed values with a wrong check letter: {bad['found']}/{bad['n']} found, "
        f"{bad['covered']} covered"
    )
    look = scores["lookalikes"]
    typer.echo(f"look-alikes overlapped by a prediction: {look['hit']} of {look['n']} (target 0)")
    failed = look.get("failed_check", {})
    if failed:
        hit = sum(row["hit"] for row in failed.values())
        n = sum(row["n"] for row in failed.values())
        per_kind = ", ".join(f"{kind} {row['hit']}/{row['n']}" for kind, row in failed.items())
        typer.echo(
            f"  in an identifier's shape, failing its check, no key: {hit} of {n} tagged"
            f" (target 0): {per_kind}"
        )
    for kind, row in look["types"].items():
        if row.get("hit"):
            typer.echo(f"  tagged look-alikes of type {kind}: {row['hit']} of {row['n']}")
    typer.echo(f"{'label':<32}{'support':>8}{'P':>8}{'R':>8}{'fp':>6}")
    for label, row in scores["labels"].items():
        typer.echo(
            f"{label:<32}{row['support']:>8}{100 * row['p']:>8.1f}{100 * row['r']:>8.1f}"
            f"{row['fp']:>6}"
        )


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    set_dir: Annotated[Path, typer.Argument(help="The identifier set folder (assets/identifiers)")],
    output: Annotated[Path, typer.Option(help="JSON file for every count")] = Path(
        "metrics/identifiers.json"
    ),
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> None:
    if not set_dir.is_dir():
        typer.echo(
            f"{set_dir}: no such folder (the identifier set; write it with "
            "experiments/make_identifier_set.py)",
            err=True,
        )
        raise typer.Exit(1)
    try:
        nlp = spacy.load(model)
    except OSError as err:
        typer.echo(f"{model}: cannot load the pipeline ({err})", err=True)
        raise typer.Exit(1) from None
    try:
        scores = evaluate_identifiers(nlp, set_dir, batch_size=batch_size)
    except (BratError, EvaluationError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    print_scores(scores)
    output.parent.mkdir(parents=True, exist_ok=True)
    srsly.write_json(output, scores)
    typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
