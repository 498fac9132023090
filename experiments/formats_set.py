"""Build and check the formats evaluation set (invented reports, gold written inline).

Sources: ``<source>/<doctype>/<doctype>_<NN>.txt``, the report text with each PHI mention
written ``[[LABEL|surface text]]`` (see meddocan_deid.evaluation.formats_set).

    python experiments/formats_set.py build assets/formats/source assets/formats
        writes <doctype>_<NN>.txt (markup removed) and .ann (BRAT) for every source,
        then prints reports and mentions per doc type and mentions per label
    python experiments/formats_set.py check assets/formats/source assets/formats
        exits 1 if a built file is missing, differs from what build writes, or has no source

Bad markup (unknown label, unclosed '[[', empty mention, missing '|', a mention starting
or ending with a space) stops both commands with exit 1 and names the file and line.
"""

from pathlib import Path

import typer

from meddocan_deid.evaluation.formats_set import (
    MarkupError,
    compare,
    read_sources,
    summary,
    write_set,
)

app = typer.Typer(add_completion=False, help=__doc__)

SOURCE = typer.Argument(..., help="Folder of <doctype>/<doctype>_<NN>.txt sources")
OUT = typer.Argument(..., help="Folder of the built .txt/.ann files")


def _sources(source: Path):
    try:
        return read_sources(source)
    except MarkupError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None


@app.command()
def build(source: Path = SOURCE, out: Path = OUT) -> None:
    """Write the built set and print its table."""
    docs = _sources(source)
    write_set(docs, out)
    rows, labels = summary(docs)
    typer.echo("doctype\treports\tmentions")
    for doctype, n_reports, n_mentions in rows:
        typer.echo(f"{doctype}\t{n_reports}\t{n_mentions}")
    typer.echo(f"total\t{sum(r[1] for r in rows)}\t{sum(r[2] for r in rows)}")
    typer.echo("\nlabel\tmentions")
    for label, count in sorted(labels.items(), key=lambda kv: (-kv[1], kv[0])):
        typer.echo(f"{label}\t{count}")
    extra = compare(docs, out)["extra"]
    if extra:
        typer.echo(
            f"warning: {len(extra)} built files in {out} come from no source: {', '.join(extra)}",
            err=True,
        )


@app.command()
def check(source: Path = SOURCE, out: Path = OUT) -> None:
    """Exit 1 unless the built set is exactly what build would write."""
    docs = _sources(source)
    problems = compare(docs, out)
    bad = False
    for kind, names in problems.items():
        for name in names:
            typer.echo(f"{out / name}: {kind}", err=True)
            bad = True
    if bad:
        typer.echo(f"run: python experiments/formats_set.py build {source} {out}", err=True)
        raise typer.Exit(1)
    typer.echo(f"{len(docs)} reports: built files up to date")


if __name__ == "__main__":
    app()
