"""Count the countries `meddocan_deid.country` detects in BRAT folders, against the expected
ones: a folder's `countries.tsv` (report id, country), or `--expect` for every report of the
folders that have none (`--expect ES` on the MEDDOCAN corpus, written in Spain). Uses the
`.ann` entities when there are some. Prints counts only, never text.

    python scripts/country_check.py tests/data/countries tests/data/countries_unseen
    python scripts/country_check.py ../shared/meddocan/corpus/train/brat \
        ../shared/meddocan/corpus/dev/brat --expect ES

`--expect-by-name WORD=CC` (repeatable): a report whose id has WORD among its `_`-separated
parts is expected in CC (a held-out set whose file names say the country, e.g. `nota_peru_01`).

`--corpus ROOT`: also the written corpus's documents that `ROOT/countries.tsv` names (document
id, ISO 3166-1 code), with their inline gold entities; a country the detector does not tell
apart counts as missed:

    python scripts/country_check.py --corpus assets/corpus
"""

from collections import Counter
from pathlib import Path
from typing import Annotated

import pycountry
import typer

from meddocan_deid.brat import read_brat_dir
from meddocan_deid.country import country_of
from meddocan_deid.country_data import check_country
from meddocan_deid.evaluation.corpus_set import read_writer


def _expected(folder: Path) -> dict[str, str]:
    path = folder / "countries.tsv"
    if not path.exists():
        return {}
    out = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            if len(fields) != 2:
                typer.echo(f"{path}:{lineno}: expected a report id and a country", err=True)
                raise typer.Exit(1)
            out[fields[0].strip()] = check_country(fields[1])
    return out


def _corpus_expected(root: Path) -> dict[str, str]:
    """Document id -> ISO 3166-1 code, from `root/countries.tsv` (any country, known to the
    detector or not)."""
    path = root / "countries.tsv"
    if not path.exists():
        typer.echo(f"{path}: not found (document id, country)", err=True)
        raise typer.Exit(1)
    out = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 2 or pycountry.countries.get(alpha_2=fields[1].upper()) is None:
            typer.echo(f"{path}:{lineno}: expected a document id and an ISO 3166-1 code", err=True)
            raise typer.Exit(1)
        out[fields[0]] = fields[1].upper()
    return out


def _corpus_found(root: Path, found: Counter[tuple[str, str]]) -> None:
    """Count the detected countries of the corpus documents `root/countries.tsv` names."""
    expected = _corpus_expected(root)
    writers = sorted({doc_id.split("-", 1)[0] for doc_id in expected})
    seen = set()
    for writer in writers:
        folder = root / "source" / writer
        if not folder.is_dir():
            typer.echo(f"{root / 'countries.tsv'}: no writer folder {folder}", err=True)
            raise typer.Exit(1)
        for doc in read_writer(folder):
            if doc.doc_id in expected:
                seen.add(doc.doc_id)
                found[(expected[doc.doc_id], country_of(doc.text, doc.entities))] += 1
    missing = sorted(set(expected) - seen)
    if missing:
        typer.echo(f"{root / 'countries.tsv'}: no document {missing[0]}", err=True)
        raise typer.Exit(1)


def main(
    folders: Annotated[list[Path] | None, typer.Argument(help="BRAT folders (.txt, .ann)")] = None,
    expect: Annotated[
        str | None, typer.Option(help="The country of the reports no countries.tsv names")
    ] = None,
    expect_by_name: Annotated[
        list[str] | None,
        typer.Option(help="WORD=CC: reports whose id has WORD as a `_`-separated part are in CC"),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="The written corpus's root: its countries.tsv documents"),
    ] = None,
) -> None:
    folders = folders or []
    if not folders and corpus is None:
        typer.echo("no BRAT folder and no --corpus", err=True)
        raise typer.Exit(1)
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        typer.echo(f"not a folder: {', '.join(missing)}", err=True)
        raise typer.Exit(1)
    default = check_country(expect) if expect else None
    by_name = {}
    for item in expect_by_name or []:
        word, sep, code = item.partition("=")
        if not sep or not word:
            typer.echo(f"--expect-by-name {item!r}: expected WORD=CC", err=True)
            raise typer.Exit(1)
        try:
            by_name[word.lower()] = check_country(code)
        except ValueError as err:
            typer.echo(f"--expect-by-name {item!r}: {err}", err=True)
            raise typer.Exit(1) from None
    found: Counter[tuple[str, str]] = Counter()
    if corpus is not None:
        _corpus_found(corpus, found)
    for folder in folders:
        expected = _expected(folder)
        for doc in read_brat_dir(folder):
            named = [by_name[p] for p in doc.doc_id.lower().split("_") if p in by_name]
            want = expected.get(doc.doc_id, named[0] if named else default)
            if want is not None:
                found[(want, country_of(doc.text, doc.entities))] += 1
    total = sum(found.values())
    right = sum(n for (want, got), n in found.items() if want == got)
    typer.echo(f"reports: {total}; detected right: {right}")
    for want in sorted({w for w, _g in found}):
        got = {g: n for (w, g), n in found.items() if w == want}
        wrong = ", ".join(f"{g} {n}" for g, n in sorted(got.items()) if g != want)
        typer.echo(
            f"{want}: {sum(got.values())} reports, right {got.get(want, 0)}"
            + (f"; as {wrong}" if wrong else "")
        )


if __name__ == "__main__":
    typer.run(main)
