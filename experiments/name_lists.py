"""Write the name lists the surrogates draw from, per country, after the checks of
`meddocan_deid.deid.surrogates.name_filter` (a common-word check against spacy-lookups-data's
Spanish lemmas, a spelling check, the US Census 2010 surname frequencies), and print what they
removed, with the reason, by list.

- `data/names.tsv`: country (ES, MX, CO, CL, AR, or LATAM: the pool of the countries without
  a Faker locale), kind (male, female, surname), name; from Faker's es_ES, es_MX, es_CO,
  es_CL and es_AR person lists (MIT). Spain's surnames also come from the task gazetteer, read
  at run time (not copied).
- `data/name_checks.tsv`: the gazetteer's surnames that the checks remove (with the reason)
  or respell (`Trevino` -> `Treviño`).

    python experiments/name_lists.py ../shared/meddocan/gazetteer
"""

import importlib
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.country_data import surname_counts
from meddocan_deid.deid.surrogates.name_filter import (
    CONFUSABLE,
    FIRST_NAME_PAIRS,
    accent_problem,
    filter_names,
)
from meddocan_deid.deid.surrogates.tables import DATA
from meddocan_deid.lexicon import lookup_key
from meddocan_deid.pipeline.privacy import load_dictionary_words

LOCALES = {"ES": "es_ES", "MX": "es_MX", "CO": "es_CO", "CL": "es_CL", "AR": "es_AR"}
KINDS = {"male": "first_names_male", "female": "first_names_female", "surname": "last_names"}
MIN_SURNAMES = 150  # a locale with fewer surnames gets the pool's most frequent ones too
NAMES_HEADER = """# First names and surnames the surrogates draw from, per country: country (ES, MX,
# CO, CL, AR; LATAM: the pool for the countries without a Faker locale), kind (male, female,
# surname), name. From Faker's person lists (MIT) after the checks of
# surrogates/name_filter.py; LATAM surnames: those of the pool among the 5,000 most frequent
# US Census 2010 Hispanic surnames (public domain). Written by experiments/name_lists.py.
"""
CHECKS_HEADER = """# The task gazetteer's surnames (MEDDOCAN, CC BY 4.0) that the checks of
# surrogates/name_filter.py remove or respell: kind, name, action (remove, respell), the reason
# or the new spelling. Written by experiments/name_lists.py; read by surrogates/names.py.
"""


def _faker(locale: str, attr: str) -> list[str]:
    values = getattr(importlib.import_module(f"faker.providers.person.{locale}").Provider, attr)
    return list(values.keys() if isinstance(values, dict) else values)


def _gazetteer(folder: Path, stem: str) -> list[str]:
    files = sorted(folder.glob(f"{stem}*.txt"))
    if not files:
        typer.echo(f"{folder}: no gazetteer file {stem}*.txt", err=True)
        raise typer.Exit(1)
    return [
        line.strip() for line in files[0].read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def main(
    gazetteer: Annotated[Path, typer.Argument(help="The MEDDOCAN gazetteer folder")],
    output: Annotated[Path, typer.Option(help="Folder of names.tsv and name_checks.tsv")] = DATA,
) -> None:
    if not gazetteer.is_dir():
        typer.echo(f"{gazetteer}: not a folder", err=True)
        raise typer.Exit(1)
    census = surname_counts()
    first = {lookup_key(n): n for n in _gazetteer(gazetteer, "Nombres") if " " not in n}
    for attr in ("first_names_male", "first_names_female"):
        first.update({lookup_key(n): n for n in _faker("es_ES", attr) if " " not in n})
    last = {lookup_key(n): n for n in _faker("es_ES", "last_names") if " " not in n}
    trusted = {**first, **last}
    listed = {
        kind: frozenset(lookup_key(n) for locale in LOCALES.values() for n in _faker(locale, attr))
        for kind, attr in KINDS.items()
    }
    spellings = {}  # accents of the Latin American lists, for names es_ES lacks
    for locale in LOCALES.values():
        for attr in KINDS.values():
            for n in _faker(locale, attr):
                key = lookup_key(n)
                if n != n.lower() and lookup_key(n) != n.lower() and not accent_problem(n):
                    if key in census or key in trusted:
                        spellings.setdefault(key, n)
    dictionary = load_dictionary_words()

    def _args(kind: str, names: list[str], country: str) -> tuple:
        surname = kind == "surname"
        return (
            names,
            last if surname else first,
            census if surname else {},
            dictionary,
            country,
            spellings,
            listed[kind],
            CONFUSABLE if surname else FIRST_NAME_PAIRS,
        )

    rows, report = [], Counter()
    pool: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for country, locale in LOCALES.items():
        for kind, attr in KINDS.items():
            kept, removed = filter_names(*_args(kind, _faker(locale, attr), country))
            if country != "ES":
                pool[kind] += _faker(locale, attr)
            if kind == "surname" and len(kept) < MIN_SURNAMES:
                top = sorted(census, key=lambda k: -census[k])[:1000]
                extra = [
                    n
                    for n in (last.get(k) or spellings.get(k) for k in top)
                    if n and not accent_problem(n)
                ]
                kept = sorted({*kept, *extra}, key=lookup_key)
            rows += [(country, kind, n) for n in kept]
            for r in removed:
                report[(locale, kind, r.reason.split(" of ")[0])] += 1
            examples = ", ".join(f"{r.name} ({r.reason})" for r in removed[:6])
            typer.echo(f"{locale} {kind}: {len(kept)} kept, {len(removed)} removed: {examples}")
    for kind in KINDS:
        kept, removed = filter_names(*_args(kind, pool[kind], "LATAM"))
        if kind == "surname":
            kept = [n for n in kept if lookup_key(n) in census]
        rows += [("LATAM", kind, n) for n in kept]
        typer.echo(f"LATAM {kind}: {len(kept)} kept")
    kept, removed = filter_names(*_args("surname", _gazetteer(gazetteer, "Apellidos"), "ES"))
    checks = [("surname", r.name, "remove", r.reason) for r in removed]
    gaz = {lookup_key(n): n for n in _gazetteer(gazetteer, "Apellidos")}
    checks += [
        ("surname", gaz[lookup_key(n)], "respell", n)
        for n in kept
        if gaz.get(lookup_key(n), n) != n
    ]
    for r in removed:
        report[("gazetteer", "surname", r.reason.split(" of ")[0])] += 1
    typer.echo(
        f"gazetteer surnames: {len(kept)} kept, {len(removed)} removed: "
        + ", ".join(f"{r.name} ({r.reason})" for r in removed[:8])
    )
    (output / "names.tsv").write_text(
        NAMES_HEADER + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8"
    )
    (output / "name_checks.tsv").write_text(
        CHECKS_HEADER + "".join("\t".join(r) + "\n" for r in sorted(checks)), encoding="utf-8"
    )
    for (source, kind, reason), n in sorted(report.items()):
        typer.echo(f"removed\t{source}\t{kind}\t{reason}\t{n}")


if __name__ == "__main__":
    typer.run(main)
