"""Bring the MEDDOCAN corpus into assets/: from ../shared/meddocan when it exists,
otherwise from the upstream clone fetched by `spacy project assets`."""

import shutil
from pathlib import Path

import typer

# Folders copied from a local copy; each is optional except corpus/.
FOLDERS = ("corpus", "sentences", "background", "gazetteer")


def main(
    dest: Path = typer.Argument(..., help="Destination, e.g. assets/meddocan"),
    shared: Path = typer.Option(Path("../shared/meddocan"), help="Local copy of the corpus"),
    upstream: Path = typer.Option(
        Path("assets/upstream"), help="Where `spacy project assets` puts the upstream clone"
    ),
) -> None:
    if (shared / "corpus").is_dir():
        source = shared
    elif (upstream / "corpus").is_dir():
        source = upstream
    else:
        typer.echo(
            f"No corpus found: neither {shared}/corpus nor {upstream}/corpus exists. "
            "Put the MEDDOCAN copy at ../shared/meddocan or run `spacy project assets`.",
            err=True,
        )
        raise typer.Exit(1)
    for name in FOLDERS:
        src, dst = source / name, dest / name
        if not src.is_dir():
            continue
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(src, dst)
    splits = sorted(p.parent.name for p in (dest / "corpus").glob("*/brat"))
    counts = {s: len(list((dest / "corpus" / s / "brat").glob("*.txt"))) for s in splits}
    typer.echo(
        f"Corpus from {source} -> {dest}: "
        + ", ".join(f"{s} {n} reports" for s, n in counts.items())
    )
    if not counts:
        typer.echo(f"{dest}/corpus has no <split>/brat folders", err=True)
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
