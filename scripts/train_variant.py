"""Train a variant of the NER: the default config plus in-domain representations or silver data.

Each option switches on one thing (empty: off), so a project var can carry it; raw
config overrides cannot go through project vars (weasel reads values that start with
"--" as options, and turns "true"/"null" into non-strings).
"""
from pathlib import Path

import typer
from spacy.cli.train import train


def main(
    config: Path = typer.Argument(..., help="NER training config"),
    output: Path = typer.Argument(..., help="Output folder"),
    train_path: Path = typer.Option(..., "--train", help="Gold train DocBin"),
    dev_path: Path = typer.Option(..., "--dev", help="Dev DocBin"),
    max_steps: int = typer.Option(4000, help="Training steps"),
    eval_frequency: int = typer.Option(400, help="Steps between dev evaluations"),
    gpu_id: int = typer.Option(-1, help="GPU id, -1 for CPU"),
    vectors: str = typer.Option("", help="spaCy vectors model for the tok2vec (include_static_vectors)"),
    init_tok2vec: str = typer.Option("", help="Pretrained tok2vec weights (spacy pretrain)"),
    silver: str = typer.Option("", help="Silver DocBin for self-training (scripts/silver.py)"),
    gold_copies: int = typer.Option(1, help="Times the gold reports are read per epoch"),
    span_keys: str = typer.Option("", help="Comma-separated span groups the tok2vec reads as features "
                                           "(configs/ner_features.cfg only; empty: the config's)"),
    seed: int = typer.Option(0, help="Random seed (system.seed): ensemble members of one config differ by it"),
    beam_width: int = typer.Option(0, help="Beam search NER (spaCy's beam_ner) of this width; 0: the config's NER"),
):
    overrides = {
        "paths.train": str(train_path),
        "paths.dev": str(dev_path),
        "training.max_steps": max_steps,
        "training.eval_frequency": eval_frequency,
        "corpora.train.gold_copies": gold_copies,
        "system.seed": seed,
    }
    for option, value in (("vectors", vectors), ("init_tok2vec", init_tok2vec), ("silver", silver)):
        if value and not Path(value).exists():
            typer.echo(f"--{option.replace('_', '-')}: {value} does not exist", err=True)
            raise typer.Exit(1)
    if vectors:
        overrides["paths.vectors"] = vectors
        overrides["components.tok2vec.model.embed.include_static_vectors"] = True
    if init_tok2vec:
        overrides["paths.init_tok2vec"] = init_tok2vec
    if silver:
        overrides["paths.silver"] = silver
    if span_keys:
        overrides["components.tok2vec.model.embed.span_keys"] = [k.strip() for k in span_keys.split(",") if k.strip()]
    if beam_width < 0:
        typer.echo(f"--beam-width: {beam_width} is negative", err=True)
        raise typer.Exit(1)
    if beam_width:
        overrides["components.ner.factory"] = "beam_ner"
        overrides["components.ner.beam_width"] = beam_width
        overrides["components.ner.beam_density"] = 0.001
    train(config, output, use_gpu=gpu_id, overrides=overrides)


if __name__ == "__main__":
    typer.run(main)
