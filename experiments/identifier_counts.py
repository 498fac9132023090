"""How many entities the identifier recognizers add over a folder of unannotated reports
(counts per kind; never any text), and optionally a seeded sample of them with context,
written to a gitignored file for a person to review.

    python experiments/identifier_counts.py training/pipeline assets/meddocan/background \
        --sample 50 --sample-out reports/identifier_sample.tsv
"""

import csv
from pathlib import Path

import spacy
import typer

from meddocan_deid.brat import read_text
from meddocan_deid.evaluation.identifier_counts import (
    STATUSES,
    counts_table,
    identifier_additions,
    review_sample,
)


def main(
    model: str = typer.Argument(..., help="Installed package name or pipeline path"),
    folder: Path = typer.Argument(..., help="Folder of .txt reports"),
    limit: int = typer.Option(0, help="Use only the first N reports (0: all)"),
    sample: int = typer.Option(0, help="Write a seeded sample of N added identifiers with context"),
    sample_out: Path = typer.Option(
        Path("reports/identifier_sample.tsv"), help="Where the sample goes (holds report text)"
    ),
    seed: int = typer.Option(0),
) -> None:
    files = sorted(folder.glob("*.txt"))[: limit or None]
    if not files:
        typer.echo(f"{folder}: no .txt reports", err=True)
        raise typer.Exit(1)
    texts = {f.stem: read_text(f) for f in files}
    nlp = spacy.load(model)
    try:
        counts, found = identifier_additions(nlp, texts.items())
    except ValueError as err:
        typer.echo(f"{model}: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo(
        f"reports: {len(texts)}; identifiers per kind (new: no entity there before; changed: "
        "earlier entities overlapped it otherwise; relabelled: same offsets, other label; same: "
        "already found)"
    )
    typer.echo("\t".join(["kind", *STATUSES, "all"]))
    for row in counts_table(counts):
        typer.echo("\t".join(row))
    if sample:
        sample_out.parent.mkdir(parents=True, exist_ok=True)
        with sample_out.open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, delimiter="\t")
            writer.writerow(["doc", "kind", "status", "left", "span", "right"])
            writer.writerows(review_sample(found, texts, sample, seed))
        typer.echo(
            f"sample of {min(sample, sum(r != 'same' for _d, _k, r, _s, _e in found))} -> "
            f"{sample_out} (holds report text: do not share)"
        )


if __name__ == "__main__":
    typer.run(main)
