"""Collect the unannotated texts for in-domain representations (never dev or test).

Writes the background reports plus the train reports as
- JSONL (`{"text": ...}` per report) for `spacy pretrain`, and
- a plain token file (one report line per line, tokens separated by spaces, made by
  the MEDDOCAN tokenizer) for training floret vectors.
Both land in gitignored folders; only counts are printed.
"""

import json
from pathlib import Path

import typer

from meddocan_deid.brat import read_text
from meddocan_deid.pipeline.tokenizer import blank_pipeline


def main(
    background_dir: Path = typer.Argument(..., help="Folder of unannotated reports (*.txt)"),
    train_dir: Path = typer.Argument(..., help="Train BRAT folder (*.txt); dev is never used"),
    jsonl_out: Path = typer.Argument(..., help="JSONL for spacy pretrain"),
    tokens_out: Path = typer.Argument(..., help="Token file for floret"),
    limit: int = typer.Option(
        0, help="Take at most this many reports of each folder (0: all); for tests"
    ),
):
    paths = (
        sorted(background_dir.glob("*.txt"))[: limit or None]
        + sorted(train_dir.glob("*.txt"))[: limit or None]
    )
    if not paths:
        typer.echo(f"No .txt files in {background_dir} or {train_dir}", err=True)
        raise typer.Exit(1)
    nlp = blank_pipeline()
    jsonl_out.parent.mkdir(parents=True, exist_ok=True)
    tokens_out.parent.mkdir(parents=True, exist_ok=True)
    n_tokens = 0
    texts = (read_text(p) for p in paths)
    with (
        open(jsonl_out, "w", encoding="utf-8") as fj,
        open(tokens_out, "w", encoding="utf-8") as ft,
    ):
        for text in texts:
            fj.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
            for line in text.splitlines():
                words = [t.text for t in nlp.make_doc(line) if not t.is_space]
                if words:
                    n_tokens += len(words)
                    ft.write(" ".join(words) + "\n")
    typer.echo(f"{len(paths)} reports ({n_tokens:,} tokens) -> {jsonl_out}, {tokens_out}")


if __name__ == "__main__":
    typer.run(main)
