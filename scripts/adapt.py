"""Adapt the shipped pipeline to a hospital's reports (`spacy project run adapt`).

    python scripts/adapt.py corpus/local.spacy es_meddocan_deid corpus/train.spacy \
        corpus/dev.spacy training/adapt --name hospital_a --folds 5 --train-sizes 5,10,20 \
        --packages packages

LOCAL: the corrected local reports (`meddocan-deid import`). BASE: the shipped pipeline (path
or installed package). Fine-tunes its tok2vec + NER on the local reports mixed with MEDDOCAN
train (`--local-share` of each batch local), from the shipped weights; prints the K-fold
learning curve on the held-out local reports and the before/after scores on MEDDOCAN dev;
then fine-tunes on every local report and saves OUTPUT_DIR/pipeline, version
`<shipped>+local.<name>`, its meta recording the number of local reports and the scores.
With `--packages DIR` it also builds the wheel there (scripts/package.py, not installed).
Writes OUTPUT_DIR/adapt.md (the tables) and OUTPUT_DIR/adapt_scores.json. Prints numbers
only, never report text. See components/meddocan_deid/training/adapt.py.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.files import atomic_write
from meddocan_deid.training.adapt import AdaptError, Settings, adapt, parse_frozen, parse_sizes


def main(
    local: Annotated[
        Path, typer.Argument(help="DocBin of the corrected local reports (meddocan-deid import)")
    ],
    base: Annotated[str, typer.Argument(help="Shipped pipeline: path or installed package name")],
    train: Annotated[Path, typer.Argument(help="MEDDOCAN train DocBin (rehearsal)")],
    dev: Annotated[Path, typer.Argument(help="MEDDOCAN dev DocBin (before/after)")],
    output_dir: Annotated[
        Path, typer.Argument(help="Folder for pipeline/, adapt.md and adapt_scores.json")
    ],
    name: Annotated[
        str, typer.Option(help="Local name for the version: <shipped>+local.<name>")
    ] = "site",
    folds: Annotated[
        int, typer.Option(help="K of the K-fold cross-validation over the local reports")
    ] = 5,
    train_sizes: Annotated[
        str, typer.Option(help="Local reports each fold model trains on (learning curve)")
    ] = "5,10,20",
    local_share: Annotated[
        float, typer.Option(help="Share of each batch drawn from the local reports")
    ] = 0.25,
    max_steps: Annotated[int, typer.Option(help="Updates (batches) per fine-tuning")] = 40,
    batch_size: Annotated[int, typer.Option(help="Reports per batch")] = 8,
    learn_rate: Annotated[float, typer.Option(help="Adam learning rate")] = 0.0002,
    dropout: Annotated[float, typer.Option(help="Dropout")] = 0.3,
    frozen: Annotated[
        str,
        typer.Option(help="Components run but not updated: 'tok2vec' (only the NER learns) or ''"),
    ] = "",
    average: Annotated[
        bool, typer.Option(help="Save the running average of the weights over the updates")
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the folds, the batches and training")] = 0,
    dev_limit: Annotated[int, typer.Option(help="Score only the first N dev reports (0: all)")] = 0,
    packages: Annotated[
        Path | None, typer.Option(help="Also build the pipeline wheel in this folder")
    ] = None,
    package_name: Annotated[
        str, typer.Option(help="Package name (default: the shipped one's)")
    ] = "",
) -> None:
    from spacy.util import fix_random_seed

    fix_random_seed(seed)
    settings = Settings(
        local_share=local_share,
        folds=folds,
        max_steps=max_steps,
        batch_size=batch_size,
        learn_rate=learn_rate,
        dropout=dropout,
        seed=seed,
        dev_limit=dev_limit,
        average=average,
    )
    try:
        settings.train_sizes = parse_sizes(train_sizes)
        settings.frozen = parse_frozen(frozen)
        result = adapt(base, local, train, dev, output_dir, name, settings, log=typer.echo)
    except AdaptError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    record = result["record"]
    atomic_write(output_dir / "adapt.md", "\n".join(result["table"]) + "\n")
    atomic_write(output_dir / "adapt_scores.json", json.dumps(record, indent=2))
    if packages is None:
        return
    meta = result["base_meta"]
    description = (
        f"{meta.get('description', '')} Adapted with {record['local_reports']} local reports "
        f"({name}); scores in `adaptation`."
    ).strip()
    atomic_write(output_dir / "dev_after.json", json.dumps(record["meddocan_dev"]["after"]))
    atomic_write(
        output_dir / "extra_meta.json",
        json.dumps({"description": description, "adaptation": record}),
    )
    script = Path(__file__).resolve().parent / "package.py"
    cmd = [
        sys.executable,
        str(script),
        str(output_dir / "pipeline"),
        str(packages),
        "--name",
        package_name or meta.get("name", "meddocan_deid"),
        "--version",
        result["version"],
        "--metrics",
        str(output_dir / "dev_after.json"),
        "--extra-meta",
        str(output_dir / "extra_meta.json"),
        "--no-install",
    ]
    if subprocess.run(cmd).returncode != 0:
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
