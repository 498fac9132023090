"""Write the town list of the Americas that the rule_entities component reads beside Spain's
(`components/meddocan_deid/pipeline/data/americas/towns.txt`; country detection counts
these places too): the places of `meddocan_deid.country_data` of 15,000
inhabitants or more (GeoNames, CC BY 4.0), less those a report would write as something else:
a first name or a surname (Faker's Spanish-language lists, the task gazetteer), a Spanish
dictionary word (spacy-lookups-data), or a name of one letter or number.

    python experiments/americas_town_list.py ../shared/meddocan/gazetteer \
        components/meddocan_deid/pipeline/data/americas/towns.txt
"""

import importlib
from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.country_data import SPAIN, countries, places
from meddocan_deid.lexicon import lookup_key
from meddocan_deid.pipeline.privacy import load_dictionary_words

MIN_POPULATION = 15000
LOCALES = ("es_ES", "es_MX", "es_CO", "es_CL", "es_AR", "es")
HEADER = """# Places of the Spanish-speaking countries of the Americas and of the US states with
# large Hispanic populations, of 15,000 inhabitants or more, that are not a first name, a
# surname or a Spanish word: GeoNames (https://www.geonames.org, CC BY 4.0) through
# pipeline/data/americas/places.tsv. Written by experiments/americas_town_list.py; read by the
# rule_entities component (towns after a place cue and anywhere), beside towns_geonames.txt,
# and by meddocan_deid.country.
"""


def _names(gazetteer: Path) -> set[str]:
    found = set()
    for locale in LOCALES:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ModuleNotFoundError:
            continue
        for attr in ("first_names_male", "first_names_female", "first_names", "last_names"):
            values = getattr(provider, attr, ())
            if isinstance(values, dict):
                values = values.keys()
            if isinstance(values, (list, tuple, set, type({}.keys()))):  # not a property
                found.update(lookup_key(v) for v in values)
    for stem in ("Nombres", "Apellidos"):
        for path in gazetteer.glob(f"{stem}*.txt"):
            found.update(lookup_key(n) for n in path.read_text(encoding="utf-8").splitlines())
    return found


def main(
    gazetteer: Annotated[Path, typer.Argument(help="The MEDDOCAN gazetteer folder")],
    output: Annotated[Path, typer.Argument(help="The town list to write")],
) -> None:
    if not gazetteer.is_dir():
        typer.echo(f"{gazetteer}: not a folder", err=True)
        raise typer.Exit(1)
    names, dictionary = _names(gazetteer), load_dictionary_words()
    kept, left_out = set(), 0
    for code in countries():
        if code == SPAIN:
            continue
        for place in places(code, MIN_POPULATION):
            key = lookup_key(place)
            if key in names or place.lower() in dictionary or key in dictionary or len(key) < 3:
                left_out += 1
                continue
            kept.add(place)
    output.write_text(HEADER + "".join(p + "\n" for p in sorted(kept)), encoding="utf-8")
    typer.echo(f"{output}: {len(kept)} places ({left_out} left out: names and words)")


if __name__ == "__main__":
    typer.run(main)
