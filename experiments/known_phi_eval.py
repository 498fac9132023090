"""Recall gained by known identifiers: the header's gold name and IDs of each report given as
`known_phi`, the share of the patient's name and ID gold mentions in the body and footer
covered by predicted entities, before and after. Prints counts only, never text.

    python experiments/known_phi_eval.py MODEL corpus/dev.spacy
"""

from pathlib import Path
from typing import Annotated

import spacy
import typer

from meddocan_deid.evaluation.known_phi import format_report, measure


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[
        Path, typer.Argument(help="DocBin written by scripts/convert.py (gold in user_data)")
    ],
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> None:
    if not data_path.is_file():
        typer.echo(f"{data_path}: no such DocBin", err=True)
        raise typer.Exit(2)
    nlp = spacy.load(model)
    if not any(nlp.get_pipe_meta(name).factory == "meddocan_sections" for name in nlp.pipe_names):
        typer.echo(
            f"{model}: the pipeline has no section component (doc.spans['sections'])", err=True
        )
        raise typer.Exit(2)
    typer.echo(format_report(measure(nlp, data_path, batch_size=batch_size)))


if __name__ == "__main__":
    typer.run(main)
