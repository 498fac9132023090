"""Label the unannotated background reports with a trained pipeline (silver data).

The full pipeline (rules + NER + trusted PHI) is the teacher: its entities on the
2,751 background reports become extra training data for the next NER (self-training).
The background reports share no report with dev. Only counts are printed; a report that
cannot be read is named with the reason, and the run exits 1 after writing the others.
"""

import collections
from pathlib import Path

import spacy
import typer
from spacy.tokens import Doc, DocBin, Span

from meddocan_deid.brat import BratError, read_text


def plain_copy(doc: Doc, missing_labels: set[str]) -> Doc:
    """The tokens and entities only: candidate spans and sections are not training data.
    Entities of `missing_labels` become missing annotation: the student learns neither
    them nor that their tokens are outside an entity."""
    copy = Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc])
    spans = [Span(copy, e.start, e.end, label=e.label_) for e in doc.ents]
    copy.set_ents(
        [s for s in spans if s.label_ not in missing_labels],
        missing=[s for s in spans if s.label_ in missing_labels],
        default="outside",
    )
    return copy


def main(
    pipeline: str = typer.Argument(..., help="Teacher pipeline (path or package name)"),
    background_dir: Path = typer.Argument(..., help="Folder of unannotated reports (*.txt)"),
    output: Path = typer.Argument(..., help="DocBin to write"),
    limit: int = typer.Option(0, help="Label at most this many reports (0: all); for tests"),
    batch_size: int = typer.Option(16, help="Reports per nlp.pipe batch"),
    missing_labels: str = typer.Option(
        "", help="Comma-separated labels the teacher is weak on: left as missing annotation"
    ),
):
    paths = sorted(background_dir.glob("*.txt"))[: limit or None]
    if not paths:
        typer.echo(f"{background_dir}: no .txt files", err=True)
        raise typer.Exit(1)
    missing = {label for label in missing_labels.split(",") if label}
    nlp = spacy.load(pipeline)
    texts, failed = [], []
    for path in paths:
        try:
            texts.append(read_text(path))
        except BratError as err:
            failed.append(str(err))
    db = DocBin()
    labels = collections.Counter()
    n_tokens = 0
    for doc in nlp.pipe(texts, batch_size=batch_size):
        db.add(plain_copy(doc, missing))
        labels.update(e.label_ for e in doc.ents)
        n_tokens += len(doc)
    output.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(output)
    typer.echo(
        f"{len(texts)} reports, {n_tokens:,} tokens, {sum(labels.values()):,} entities -> {output}"
    )
    for label, n in labels.most_common():
        typer.echo(f"  {label:<36} {n:>6}")
    for message in failed:
        typer.echo(f"failed: {message}", err=True)
    if failed:
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
