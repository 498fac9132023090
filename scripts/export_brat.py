"""Write system and gold BRAT files in the layout the official MEDDOCAN evaluation reads.

    python scripts/export_brat.py MODEL corpus/dev.spacy OUTPUT_DIR

OUTPUT_DIR/res/brat/subtask1/ID.{txt,ann}  system annotations with labels
OUTPUT_DIR/res/brat/subtask2/ID.{txt,ann}  the same spans (the official script reads both)
OUTPUT_DIR/ref/brat/ID.{txt,ann}           gold (user_data meddocan_gold, or --gold-brat)
"""
from pathlib import Path
from typing import Annotated, Iterable, Optional

import spacy
import typer

from meddocan_deid.evaluation.brat import write_brat
from meddocan_deid.evaluation.results import DocResult, run_model


def export(results: Iterable[DocResult], output_dir: Path) -> int:
    n = 0
    for r in results:
        for sub in ("subtask1", "subtask2"):
            write_brat(output_dir / "res" / "brat" / sub, r.doc_id, r.text, r.system)
        write_brat(output_dir / "ref" / "brat", r.doc_id, r.text, r.gold)
        n += 1
    return n


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[Path, typer.Argument(help="DocBin written by scripts/convert.py")],
    output_dir: Annotated[Path, typer.Argument(help="Folder for res/ and ref/")],
    gold_brat: Annotated[Optional[Path], typer.Option(help="Take the gold from this BRAT folder")] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> None:
    nlp = spacy.load(model)
    results, _ = run_model(nlp, data_path, batch_size=batch_size, gold_brat=gold_brat)
    n = export(results, output_dir)
    n_sys = sum(len(r.system) for r in results)
    n_gold = sum(len(r.gold) for r in results)
    typer.echo(f"{n} reports: {n_sys} system and {n_gold} gold annotations -> {output_dir}/res/brat, {output_dir}/ref/brat")


if __name__ == "__main__":
    typer.run(main)
