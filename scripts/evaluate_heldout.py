"""The robustness table: strict F1, identifying-word recall and the share of other words
removed on each evaluation set, as written, in lower case and in capitals (same offsets, the
original gold: `meddocan_deid.text_variants`), the pipeline loaded once. Numbers only.

    python scripts/evaluate_heldout.py training/pipeline assets/formats assets/prose_heldout \
        assets/heldout_types --output metrics/heldout.json
"""

from pathlib import Path

import spacy
import srsly
import typer

from meddocan_deid.evaluation.formats import evaluate_formats, read_set

CASES = ("as written", "lower", "upper")


def main(
    model: str = typer.Argument(..., help="Pipeline path or installed package name"),
    sets: list[Path] = typer.Argument(..., help="Evaluation set folders (built .txt/.ann)"),
    output: Path | None = typer.Option(None, help="JSON file for every score"),
    batch_size: int = typer.Option(16),
    limit: int = typer.Option(
        0, help="Score only the first N reports of each set by name (0: all; for quick runs)"
    ),
) -> None:
    nlp = spacy.load(model)
    table = {}
    typer.echo(
        f"{'set':<22}{'case':<12}{'docs':>5}{'P':>8}{'R':>8}{'F1':>8}{'ident.R':>9}{'removed':>9}"
    )
    for folder in sets:
        docs = read_set(folder)
        docs = docs[:limit] if limit > 0 else docs
        for case in CASES:
            scores = evaluate_formats(
                nlp,
                folder,
                batch_size=batch_size,
                docs=docs,
                case=None if case == "as written" else case,
            )
            o = scores["overall"]
            table[f"{folder.name}/{case}"] = scores
            typer.echo(
                f"{folder.name:<22}{case:<12}{o['n_docs']:>5}{o['meddocan_s1_p']:>8.4f}{o['meddocan_s1_r']:>8.4f}"
                f"{o['meddocan_s1_f']:>8.4f}{o['meddocan_phi_identifying_word_recall']:>9.4f}"
                f"{100 * o['meddocan_over_redaction']:>8.2f}%"
            )
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        srsly.write_json(output, table)
        typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
