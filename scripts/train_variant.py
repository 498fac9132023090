"""Train a variant of the NER: the default config plus in-domain representations or silver data.

Each option switches on one thing (empty: off), so a project var can carry it; raw
config overrides cannot go through project vars (weasel reads values that start with
"--" as options, and turns "true"/"null" into non-strings).
"""

import tempfile
from pathlib import Path

import typer
from spacy.cli.train import train
from spacy.util import load_config

# `--encoder bilstm`: spaCy's PyTorch BiLSTM in place of the config's CNN (needs torch);
# the width stays the config's, so the embedding and the NER's listener still fit
ENCODERS = {
    "cnn": None,
    "bilstm": {"@architectures": "spacy.TorchBiLSTMEncoder.v1", "depth": 2, "dropout": 0.1},
}
# `--embed`: the tok2vec embedding, and the options it keeps from the config's. `char` is
# spaCy's character embedding (the first and last 4 UTF-8 bytes of each word, each
# embedded, plus a hashed NORM) in place of the hashed NORM, PREFIX, SUFFIX and SHAPE;
# `hashchar` adds the bytes to them (meddocan_deid.HashCharEmbed.v1). Unseen surnames and
# towns would share their endings with seen ones; neither beat the default (README).
# `cased`: spaCy's MultiHashEmbed, whose PREFIX, SUFFIX and SHAPE see case, in place of the
# config's case-blind one (meddocan_deid.CaselessMultiHashEmbed.v1)
EMBEDS = {
    "hash": None,
    "cased": (
        {"@architectures": "spacy.MultiHashEmbed.v2"},
        ("width", "attrs", "rows", "include_static_vectors"),
    ),
    "char": (
        {
            "@architectures": "spacy.CharacterEmbed.v2",
            "rows": 10000,
            "nM": 64,
            "nC": 8,
            "include_static_vectors": False,
            "feature": "NORM",
        },
        ("width",),
    ),
    "hashchar": (
        {"@architectures": "meddocan_deid.HashCharEmbed.v1", "nM": 32, "nC": 8},
        ("width", "attrs", "rows", "include_static_vectors"),
    ),
}


def main(
    config: Path = typer.Argument(..., help="NER training config"),
    output: Path = typer.Argument(..., help="Output folder"),
    train_path: Path = typer.Option(..., "--train", help="Gold train DocBin"),
    dev_path: Path = typer.Option(..., "--dev", help="Dev DocBin"),
    max_steps: int = typer.Option(4000, help="Training steps"),
    eval_frequency: int = typer.Option(400, help="Steps between dev evaluations"),
    gpu_id: int = typer.Option(-1, help="GPU id, -1 for CPU"),
    vectors: str = typer.Option(
        "", help="spaCy vectors model for the tok2vec (include_static_vectors)"
    ),
    init_tok2vec: str = typer.Option("", help="Pretrained tok2vec weights (spacy pretrain)"),
    silver: str = typer.Option("", help="Silver DocBin for self-training (experiments/silver.py)"),
    gold_copies: int = typer.Option(1, help="Times the gold reports are read per epoch"),
    span_keys: str = typer.Option(
        "",
        help="Comma-separated span groups the tok2vec reads as features "
        "(configs/ner_features.cfg only; empty: the config's)",
    ),
    seed: int = typer.Option(
        0, help="Random seed (system.seed): ensemble members of one config differ by it"
    ),
    beam_width: int = typer.Option(
        0, help="Beam search NER (spaCy's beam_ner) of this width; 0: the config's NER"
    ),
    window: int = typer.Option(0, help="Window size of the CNN tok2vec; 0: the config's"),
    encoder: str = typer.Option(
        "cnn", help=f"tok2vec encoder: {', '.join(ENCODERS)} (cnn: the config's)"
    ),
    embed: str = typer.Option(
        "hash", help=f"tok2vec embedding: {', '.join(EMBEDS)} (hash: the config's)"
    ),
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
        overrides["components.tok2vec.model.embed.span_keys"] = [
            k.strip() for k in span_keys.split(",") if k.strip()
        ]
    if beam_width < 0:
        typer.echo(f"--beam-width: {beam_width} is negative", err=True)
        raise typer.Exit(1)
    if beam_width:
        overrides["components.ner.factory"] = "beam_ner"
        overrides["components.ner.beam_width"] = beam_width
        overrides["components.ner.beam_density"] = 0.001
    if encoder not in ENCODERS:
        typer.echo(f"--encoder: {encoder!r} is not one of {', '.join(ENCODERS)}", err=True)
        raise typer.Exit(1)
    if window < 0 or (window and encoder != "cnn"):
        typer.echo(f"--window: {window} needs a positive size and the cnn encoder", err=True)
        raise typer.Exit(1)
    if window:
        overrides["components.tok2vec.model.encode.window_size"] = window
    if embed not in EMBEDS:
        typer.echo(f"--embed: {embed!r} is not one of {', '.join(EMBEDS)}", err=True)
        raise typer.Exit(1)
    if ENCODERS[encoder] is None and EMBEDS[embed] is None:
        train(config, output, use_gpu=gpu_id, overrides=overrides)
        return
    # an override can add or change options but not drop the config's, so the encoder or
    # embedding section is replaced in a copy of the config
    cfg = load_config(config, interpolate=False)
    model = cfg["components"]["tok2vec"]["model"]
    if ENCODERS[encoder] is not None:
        model["encode"] = {**ENCODERS[encoder], "width": model["encode"]["width"]}
    if EMBEDS[embed] is not None:
        section, kept = EMBEDS[embed]
        model["embed"] = {**section, **{key: model["embed"][key] for key in kept}}
    with tempfile.TemporaryDirectory() as tmp:
        variant_config = Path(tmp) / config.name
        cfg.to_disk(variant_config)
        train(variant_config, output, use_gpu=gpu_id, overrides=overrides)


if __name__ == "__main__":
    typer.run(main)
