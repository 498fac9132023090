"""The words surrogates are made of, for checks: a surrogate word outside these (and outside
its original) was not drawn from a list, i.e. it would be made-up letters."""

import re
from functools import lru_cache

from ...country_data import SPAIN, corregimiento_names, countries, divisions, institutions, places
from ...lexicon import lookup_key
from ..gazetteer import Gazetteer
from .country_places import NEIGHBOURHOOD
from .dates import EU_ENDINGS, EU_NUMBER_ENDINGS, ROMAN_MONTHS
from .tables import rows

WORD = re.compile(r"[^\W\d_]+")


def words_of(text: str):
    """The folded words of `text` (letters only, two or more)."""
    text = text.replace("º", " ").replace("ª", " ")  # `2ºC` is a floor and a door, not a word `oc`
    return [w for w in (lookup_key(m) for m in WORD.findall(text)) if len(w) >= 2]


@lru_cache(maxsize=8)
def drawn_words(gaz: Gazetteer) -> frozenset[str]:
    """Every folded word the generators write from a list: the gazetteer's lists, Faker
    es_ES's names, countries and jobs, the tables of `data/` (calendar, professions,
    provinces, communities, towns, names, institutions' templates and heads, street heads,
    words), and the places, divisions, corregimientos and institutions of the Americas."""
    from faker.providers.address.es_ES import Provider as Address
    from faker.providers.person.es_ES import Provider as Person

    texts = [v for values in gaz.lists.values() for v in values]
    texts += (
        list(Person.first_names_male) + list(Person.first_names_female) + list(Person.last_names)
    )
    texts += list(Address.countries)
    for name in (
        "calendar.tsv",
        "professions.tsv",
        "provinces.tsv",
        "communities.tsv",
        "towns.tsv",
        "words.tsv",
        "street_heads.tsv",
        "regional.tsv",
        "names.tsv",
    ):
        texts += [field for row in rows(name) for field in row]
    # the places, divisions and institutions of the Americas (country_data), and the
    # neighbourhood templates of country_places
    for code in countries():
        if code != SPAIN:
            texts += list(places(code)) + list(divisions(code)) + list(corregimiento_names(code))
    texts += [n for inst in institutions() for n in inst.names]
    texts += [re.sub(r"\{\w+\}", " ", t) for t in NEIGHBOURHOOD]
    # Basque dates: the case endings of numbers (`2021eko`) and of month and weekday names
    texts += list(EU_NUMBER_ENDINGS) + list(ROMAN_MONTHS)
    for lang, kind, _index, spelled in rows("calendar.tsv"):
        if lang == "eu" and kind in ("month", "weekday"):
            stem = spelled.split("|")[0][:-1]
            texts += [stem + e for pair in EU_ENDINGS.values() for e in pair]
    for _kind, _position, _labels, head, templates in rows("institutions.tsv"):
        texts.append(re.sub(r"\{\w+\}", " ", templates))
        texts.append(re.sub(r"\\[a-z]|[^a-z ]", " ", head))  # the head words of the patterns
    out = set()
    for text in texts:
        out.update(words_of(text))
    return frozenset(out)
