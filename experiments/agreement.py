"""Inter-annotator agreement on the written corpus (see meddocan_deid.evaluation.agreement).

python experiments/agreement.py sample assets/corpus assets/corpus/agreement/plain --per-writer 4
    the plain text of 4 documents a writer (seeded), for a blind second annotator
python experiments/agreement.py score assets/corpus assets/corpus/agreement/second
    strict F1 per label of the second annotator's markup against the writers' gold
"""

from pathlib import Path

import typer

from meddocan_deid.errors import MarkupError
from meddocan_deid.evaluation.agreement import agreement, plain_copies, read_annotations, sample_ids
from meddocan_deid.evaluation.corpus_set import read_corpus

app = typer.Typer(add_completion=False, help=__doc__)


@app.command()
def sample(
    root: Path, out: Path, per_writer: int = typer.Option(4), seed: int = typer.Option(0)
) -> None:
    """Write the plain text of a sample of each writer's documents."""
    docs = read_corpus(root, ["train"])
    ids = sample_ids(docs, per_writer, seed)
    typer.echo(f"{plain_copies(docs, ids, out)} documents of {len(docs)} -> {out}")


@app.command()
def score(root: Path, second: Path) -> None:
    """Print the agreement table (counts and strict F1 per label)."""
    try:
        gold = {d.doc_id: d for d in read_corpus(root)}
        table = agreement(gold, read_annotations(second))
    except MarkupError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"documents {len(read_annotations(second))}")
    typer.echo(f"{'label':<34}{'writer':>8}{'second':>8}{'matched':>8}{'F1':>8}")
    for label, row in table.items():
        typer.echo(
            f"{label:<34}{row['first']:>8}{row['second']:>8}{row['matched']:>8}{row['f1']:>8.3f}"
        )


if __name__ == "__main__":
    app()
