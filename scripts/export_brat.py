"""Write system and gold BRAT files in the layout the official MEDDOCAN evaluation reads.

    python scripts/export_brat.py MODEL corpus/dev.spacy OUTPUT_DIR

OUTPUT_DIR/res/brat/subtask1/ID.{txt,ann}  system annotations with labels
OUTPUT_DIR/res/brat/subtask2/ID.{txt,ann}  the same spans (the official script reads both)
OUTPUT_DIR/ref/brat/ID.{txt,ann}           gold (user_data meddocan_gold, or --gold-brat)
"""

from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.evaluation.reports import export_brat


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[Path, typer.Argument(help="DocBin written by scripts/convert.py")],
    output_dir: Annotated[Path, typer.Argument(help="Folder for res/ and ref/")],
    gold_brat: Annotated[
        Path | None, typer.Option(help="Take the gold from this BRAT folder")
    ] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> None:
    export_brat(model, data_path, output_dir, gold_brat=gold_brat, batch_size=batch_size)


if __name__ == "__main__":
    typer.run(main)
