"""The NER's training set: MEDDOCAN train (format-augmented), the written corpus's training
writers, and seeded copies of both in lower case, capitals, without accents or hard-wrapped
(see `meddocan_deid.training.written`). Prints counts only, never text.

    python scripts/train_mix.py corpus/train_aug.spacy assets/corpus corpus/train_mix.spacy \
        --fraction 1.0
"""

from pathlib import Path

import typer
from spacy.tokens import DocBin

from meddocan_deid.errors import MarkupError
from meddocan_deid.pipeline.tokenizer import blank_pipeline
from meddocan_deid.training.written import MixStats, training_mix


def main(
    meddocan: Path = typer.Argument(
        ..., help="DocBin of MEDDOCAN train docs (corpus/train_aug.spacy)"
    ),
    corpus_root: Path = typer.Argument(
        ..., help="The written corpus (assets/corpus: source/ and writers.tsv)"
    ),
    output: Path = typer.Argument(..., help="DocBin to write"),
    fraction: float = typer.Option(
        1.0, help="Share of the corpus's training writers (0 to 1; the learning curve)"
    ),
    variant_copies: int = typer.Option(
        1, help="Copies of each document in lower case, capitals, no accents or broken lines"
    ),
    seed: int = typer.Option(0, help="Seed of the writers' sample and of the copies' kinds"),
    max_misaligned: float = typer.Option(
        0.03, help="Fail when a larger share of the entities fits no token boundary"
    ),
) -> None:
    if not meddocan.is_file():
        typer.echo(f"{meddocan}: DocBin not found", err=True)
        raise typer.Exit(1)
    if variant_copies < 0 or not 0.0 <= fraction <= 1.0:
        typer.echo("--variant-copies must be 0 or more and --fraction between 0 and 1", err=True)
        raise typer.Exit(1)
    nlp = blank_pipeline()
    stats = MixStats()
    out = DocBin()
    try:
        for doc in training_mix(
            nlp,
            DocBin().from_disk(meddocan).get_docs(nlp.vocab),
            corpus_root,
            fraction=fraction,
            variant_copies=variant_copies,
            seed=seed,
            stats=stats,
        ):
            out.add(doc)
    except (MarkupError, ValueError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    output.parent.mkdir(parents=True, exist_ok=True)
    out.to_disk(output)
    for origin, n in sorted(stats.docs.items()):
        typer.echo(f"{origin}\t{n}")
    typer.echo(
        f"{len(out)} docs -> {output}; entities {stats.entities}, "
        f"not aligned to tokens {sum(stats.misaligned.values())} ({stats.share_misaligned():.2%})"
    )
    for label, n in stats.misaligned.most_common():
        typer.echo(f"  not aligned {label}: {n}")
    if stats.share_misaligned() > max_misaligned:
        typer.echo(f"the share not aligned exceeds --max-misaligned {max_misaligned:.2%}", err=True)
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
