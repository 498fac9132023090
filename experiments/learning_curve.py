"""Learning curve: how the full pipeline's dev scores move with the amount of gold data.

    python experiments/learning_curve.py configs/ner.cfg configs/pipeline.cfg corpus/train.spacy \
        corpus/dev.spacy training/learning_curve metrics/learning_curve_dev.md \
        --fractions 0.25,0.5,1 --dev-folds 2

Rows:
- `--fractions`: the NER trained on that share of the train reports (a random sample
  fixed by --seed), model-best chosen on dev as in the `train` step, scored on dev;
- `--dev-folds K`: the NER trained on all train reports plus K-1 of K dev folds and
  scored on the fold it did not see (K-fold cross-validation; counts summed over the folds,
  so the row covers every dev report once). Model-best is chosen on the held-out fold,
  as the `train` step chooses it on dev. This is the estimate for a final model trained on
  train + dev, which dev itself cannot score.
Each NER is assembled into the full pipeline (`spacy assemble PIPELINE_CONFIG`, saved in
OUTPUT_DIR/<row>/pipeline) and scored with the
MEDDOCAN metrics of the evaluate step. Prints numbers only, never report text.
"""

from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.files import atomic_write
from meddocan_deid.training.learning_curve import CurveError, learning_curve


def main(
    config: Annotated[Path, typer.Argument(help="NER training config (configs/ner.cfg)")],
    pipeline_config: Annotated[
        Path, typer.Argument(help="Full pipeline config (configs/pipeline.cfg)")
    ],
    train_path: Annotated[Path, typer.Argument(help="Gold train DocBin")],
    dev_path: Annotated[Path, typer.Argument(help="Gold dev DocBin")],
    output_dir: Annotated[Path, typer.Argument(help="Folder for the trained NERs and their data")],
    table: Annotated[Path, typer.Argument(help="Markdown table to write")],
    fractions: Annotated[
        str, typer.Option(help="Comma-separated shares of the train reports, each in (0, 1]")
    ] = "0.25,0.5,1",
    dev_folds_k: Annotated[
        int,
        typer.Option(
            "--dev-folds",
            help="K >= 2: add the train + dev row by K-fold cross-validation over dev; 0: no "
            "such row",
        ),
    ] = 0,
    max_steps: Annotated[int, typer.Option(help="Training steps of each NER")] = 4000,
    eval_frequency: Annotated[int, typer.Option(help="Steps between dev evaluations")] = 400,
    seed: Annotated[int, typer.Option(help="Seed of the train sample and of training")] = 0,
    gpu_id: Annotated[int, typer.Option(help="GPU id, -1 for CPU")] = -1,
) -> None:
    try:
        lines = learning_curve(
            config,
            pipeline_config,
            train_path,
            dev_path,
            output_dir,
            fractions=fractions,
            dev_folds_k=dev_folds_k,
            max_steps=max_steps,
            eval_frequency=eval_frequency,
            seed=seed,
            gpu_id=gpu_id,
        )
    except CurveError as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    table.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(table, "\n".join(lines) + "\n")
    typer.echo("\n".join(lines))
    typer.echo(f"-> {table}")


if __name__ == "__main__":
    typer.run(main)
