"""The written corpus (`assets/corpus`): check every writer's sources and print its counts.

python experiments/corpus_set.py assets/corpus
    exit 1 on bad markup or an unlisted writer (file, line and column named); else the
    documents and mentions per split, writer, document type and label
"""

from collections import Counter
from pathlib import Path

import typer

from meddocan_deid.errors import MarkupError
from meddocan_deid.evaluation.corpus_set import SPLITS, label_counts, read_corpus


def main(
    root: Path = typer.Argument(..., help="The corpus folder (source/ and writers.tsv)"),
) -> None:
    try:
        docs = read_corpus(root, SPLITS)
    except MarkupError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    writers, types = Counter(), Counter()
    mentions_w, mentions_t = Counter(), Counter()
    for doc in docs:
        writer = doc.doc_id.split("-", 1)[0]
        writers[writer] += 1
        types[doc.doctype] += 1
        mentions_w[writer] += len(doc.entities)
        mentions_t[doc.doctype] += len(doc.entities)
    labels = label_counts(docs)
    typer.echo(
        f"documents {len(docs)}, mentions {sum(labels.values())}, writers {len(writers)}, "
        f"document types {len(types)}"
    )
    typer.echo("\nwriter\tdocuments\tmentions")
    for w in sorted(writers):
        typer.echo(f"{w}\t{writers[w]}\t{mentions_w[w]}")
    typer.echo("\ndoctype\tdocuments\tmentions")
    for t in sorted(types):
        typer.echo(f"{t}\t{types[t]}\t{mentions_t[t]}")
    typer.echo("\nlabel\tmentions")
    for label, n in sorted(labels.items(), key=lambda kv: (-kv[1], kv[0])):
        typer.echo(f"{label}\t{n}")


if __name__ == "__main__":
    typer.run(main)
