"""Train in-domain floret vectors and turn them into a spaCy vectors model.

floret (spaCy's fastText variant) stores subword hashes in a fixed table, so
surnames, towns and streets never seen in training still get a vector.
"""

from pathlib import Path

import floret
import typer


def main(
    tokens: Path = typer.Argument(
        ..., help="Token file (one line of space-separated tokens per line)"
    ),
    output: Path = typer.Argument(..., help="floret .floret text file to write"),
    dim: int = typer.Option(100, help="Vector width"),
    bucket: int = typer.Option(50000, help="Rows of the hash table"),
    minn: int = typer.Option(3, help="Shortest character n-gram"),
    maxn: int = typer.Option(5, help="Longest character n-gram"),
    epoch: int = typer.Option(5, help="Passes over the texts"),
    threads: int = typer.Option(2, help="Training threads"),
):
    if not tokens.exists():
        typer.echo(f"{tokens}: not found (run the pretrain-texts step first)", err=True)
        raise typer.Exit(1)
    model = floret.train_unsupervised(
        str(tokens),
        model="cbow",
        mode="floret",
        hashCount=2,
        bucket=bucket,
        minn=minn,
        maxn=maxn,
        minCount=2,
        dim=dim,
        epoch=epoch,
        thread=threads,
        verbose=0,
    )
    output.parent.mkdir(parents=True, exist_ok=True)
    model.save_floret_vectors(str(output))
    typer.echo(
        f"floret vectors: {bucket} rows x {dim} dims, {len(model.words)} words seen -> {output}"
    )


if __name__ == "__main__":
    typer.run(main)
