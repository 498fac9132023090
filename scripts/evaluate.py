"""Evaluate a pipeline with the MEDDOCAN metrics (official-style subtask 1, leak,
subtask 2 strict and merged).

    python scripts/evaluate.py MODEL corpus --output-dir metrics
    python scripts/evaluate.py MODEL corpus/dev.spacy --output-dir metrics

DATA_PATH is a DocBin written by scripts/convert.py, or the corpus folder: then every
split but train (dev, and test when present) is evaluated. For each split it writes
`<split><suffix>.json` and a per-type Markdown table `<split><suffix>_per_type.md`.
Prints numbers only, never report text.
"""
from pathlib import Path
from typing import Annotated, Optional

import spacy
import srsly
import typer

from meddocan_deid.files import atomic_write
from meddocan_deid.evaluation.results import per_type_markdown, run_model, score_results, sentence_source, summary_rows


def evaluate_split(nlp, data_path: Path, output_dir: Path, suffix: str, gold_brat, sentences, batch_size) -> dict:
    results, speed = run_model(nlp, data_path, batch_size=batch_size, gold_brat=gold_brat, sentences_dir=sentences)
    scores = score_results(results)
    scores["meddocan_sentence_source"] = sentence_source(results)
    scores["speed"] = speed
    output_dir.mkdir(parents=True, exist_ok=True)
    split = data_path.stem
    output, table = output_dir / f"{split}{suffix}.json", output_dir / f"{split}{suffix}_per_type.md"
    srsly.write_json(output, scores)
    atomic_write(table, per_type_markdown(scores))

    typer.echo(f"== {split}: {speed['docs']} reports, {speed['words']} words, {speed['words_per_second']:.0f} words/s")
    typer.echo(f"{'metric':<18}{'P':>8}{'R':>8}{'F1':>8}")
    for name, p, r, f in summary_rows(scores):
        typer.echo(f"{name:<18}{p:>8}{r:>8}{f:>8}")
    if "meddocan_s1_leak" in scores:
        typer.echo(f"leak (subtask 1, official sentences): {scores['meddocan_s1_leak']:.5f}")
    else:
        typer.echo(f"leak (subtask 1, PIPELINE sentences, no official counts): {scores['meddocan_s1_leak_pipeline']:.5f}")
    typer.echo("")
    typer.echo(per_type_markdown(scores), nl=False)
    typer.echo(f"-> {output}, {table}")
    return scores


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    data_path: Annotated[Path, typer.Argument(help="DocBin written by scripts/convert.py, or the corpus folder")],
    output_dir: Annotated[Path, typer.Option(help="Folder for <split>.json and <split>_per_type.md")] = Path("metrics"),
    suffix: Annotated[str, typer.Option(help="Appended to the output file names, e.g. _package")] = "",
    gold_brat: Annotated[Optional[Path], typer.Option(help="Take the gold from this BRAT folder")] = None,
    sentences: Annotated[Optional[Path], typer.Option(help="Official sentence files (ID.ann) for the leak")] = None,
    batch_size: Annotated[int, typer.Option(help="nlp.pipe batch size")] = 32,
) -> None:
    if data_path.is_dir():
        splits = sorted(p for p in data_path.glob("*.spacy") if p.stem != "train")
    else:
        splits = [data_path]
    if not splits:
        typer.echo(f"{data_path}: no evaluation split (*.spacy other than train.spacy)", err=True)
        raise typer.Exit(1)
    if not all(p.exists() for p in splits):
        typer.echo(f"{data_path}: file not found", err=True)
        raise typer.Exit(1)
    nlp = spacy.load(model)
    for split in splits:
        evaluate_split(nlp, split, output_dir, suffix, gold_brat, sentences, batch_size)


if __name__ == "__main__":
    typer.run(main)
