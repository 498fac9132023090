"""Lexicon knowledge that holds in any case: a small static-vectors table.

Each word gets one dimension per word class it belongs to (a first name, a surname, a town,
a part of a place name, a nickname, a common Spanish word, a number word ...), 1.0 where it
does and 0.0 where it does not. The table is written in word2vec text format and turned into
spaCy vectors. Every word is written in lower case, with a capital and in capitals, so that
`Teruel`, `teruel` and `TERUEL` find the same row (spaCy 3.8 does not save a vectors table
keyed by LOWER: its `attr` is kept only in floret mode); the accent-less spelling of every word
gets the union of the classes of its accented forms (`garcia`, `rocio`). The tok2vec reads it
through `MultiHashEmbed`'s `include_static_vectors`: the NER learns how far to trust each class from
context, which the case copies of the training mix alone did not teach it (prose in lower case 0.84
against 0.95 as written).

Sources, all with a licence that allows shipping them inside a model: the MEDDOCAN task
gazetteer (CC BY 4.0), GeoNames towns of Spain and of the Americas as the package ships them
(CC BY 4.0), Faker's Spanish-language person and country providers (MIT), spacy-lookups-data's
Spanish lexeme
probabilities (MIT) and the package's own word lists.
"""

import gzip
import importlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..country_data import countries
from ..country_data import places as country_places
from ..deid.surrogates.tables import rows as surrogate_rows
from ..lexicon import all_tagged_words, lower_without_accents, words

# The classes, one vector dimension each, in this order.
CLASSES = (
    "first_name",
    "surname",
    "town",  # a one-word town
    "place_part",  # a word of a place name of several words (not a stop word)
    "province",  # a province or an autonomous community (one word)
    "country",
    "street_part",  # a word of a street name
    "hospital_part",  # a word of a hospital name
    "profession",
    "nickname",
    "common_word",  # among the 20,000 most frequent lower-case Spanish word forms
    "frequent_word",  # among the 2,000 most frequent
    "number_word",
    "calendar_word",  # months, weekdays, seasons (Spanish, Catalan, Galician, Basque)
    "kinship",
)

# Spanish-language Faker locales whose person names are drawn from (first names, surnames)
FAKER_LOCALES = ("es_ES", "es_MX", "es_CO", "es_AR", "es_CL", "es", "ca_ES")

# Gazetteer file names, by the word before the parenthesis (the task's own file names)
GAZETTEER_FILES = {
    "first_name": "Nombres",
    "surname": "Apellidos",
    "town": "Municipios",
    "province": "Territorio",
    "street": "Direcciones",
    "hospital": "Hospitales",
    "profession": "Profesiones",
}

UNITS = (
    "cero uno una un dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce "
    "quince dieciséis dieciseis diecisiete dieciocho diecinueve veinte veintiuno veintiuna "
    "veintiún veintidós veintidos veintitrés veintitres veinticuatro veinticinco veintiséis "
    "veintiseis veintisiete veintiocho veintinueve treinta cuarenta cincuenta sesenta setenta "
    "ochenta noventa cien ciento doscientos doscientas trescientos trescientas cuatrocientos "
    "cuatrocientas quinientos quinientas seiscientos seiscientas setecientos setecientas "
    "ochocientos ochocientas novecientos novecientas mil millón millon millones"
)

# the function words inside names (`de la Fuente`, `Villanueva del Arzobispo`, `A Estrada`), which
# are no name part by themselves
NAME_FUNCTION_WORDS = frozenset(
    "a al d de del dels di do dos da das e el els en i la las le les lo los o os s sa ses y".split()
)

_SPLIT = re.compile(r"[\s,;:/()\-–'’.\"]+")


@dataclass
class LexiconSources:
    """Where the lexicon's words come from; `gazetteer` is the task gazetteer's folder."""

    gazetteer: Path | None = None
    common_words: int = 20000
    frequent_words: int = 2000
    faker_locales: Iterable[str] = FAKER_LOCALES
    extra: dict[str, list[str]] = field(default_factory=dict)


def _tokens(entry: str) -> list[str]:
    return [t for t in _SPLIT.split(entry.lower()) if t]


def _gazetteer_lines(folder: Path, stem: str) -> list[str]:
    matches = sorted(folder.glob(f"{stem}*.txt"))
    if not matches:
        raise FileNotFoundError(f"{folder}: no gazetteer file {stem}*.txt")
    lines = matches[0].read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


def _tsv_column(name: str, column: int) -> list[str]:
    """One column of a surrogates' table (read by their one reader, deid/surrogates/tables.py)."""
    return [row[column] for row in surrogate_rows(name) if len(row) > column]


def _names(value: object) -> Iterable[str]:
    # a provider's list is a tuple, a dict of weights, or (some locales) a property of both sexes
    if isinstance(value, dict):
        return value.keys()
    if isinstance(value, (list, tuple, set)):
        return value
    return ()


def _faker_names(locales: Iterable[str]) -> dict[str, set[str]]:
    first: set[str] = set()
    last: set[str] = set()
    for locale in locales:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ModuleNotFoundError:
            continue
        for attr in ("first_names_male", "first_names_female", "first_names"):
            first.update(_names(getattr(provider, attr, ())))
        last.update(_names(getattr(provider, "last_names", ())))
    return {"first_name": first, "surname": last}


def _faker_countries() -> list[str]:
    provider = importlib.import_module("faker.providers.address.es_ES").Provider
    return list(provider.countries)


def _lexeme_ranks(limit: int) -> list[str]:
    import spacy_lookups_data

    path = Path(spacy_lookups_data.__file__).parent / "data" / "es_lexeme_prob.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        probs: dict[str, float] = json.load(handle)
    ranked = sorted((w for w in probs if w.isalpha() and w == w.lower()), key=lambda w: -probs[w])
    return ranked[:limit]


def americas_towns() -> list[str]:
    """The populated places of the countries of the Americas (GeoNames, CC BY 4.0: the table
    of country_data). Their divisions come from pycountry (LGPL), which is used, not copied
    into a shipped table, so they are left out."""
    return [town for code in countries() for town in country_places(code)]


def _calendar_words() -> list[str]:
    return [
        form
        for row in surrogate_rows("calendar.tsv")
        if len(row) >= 4 and row[1] in ("month", "weekday", "season")
        for form in row[3].split("|")
        if len(form) > 3
    ]


def _kinship_words() -> list[str]:
    return all_tagged_words("kinship_words")


def build_lexicon(sources: LexiconSources) -> dict[str, set[str]]:
    """Word (lower case) -> the classes it belongs to; accent-less spellings included."""
    stop = NAME_FUNCTION_WORDS
    classes: dict[str, set[str]] = {}

    def add(word: str, cls: str) -> None:
        word = word.strip().lower()
        if len(word) < 2 or not any(c.isalpha() for c in word):
            return
        classes.setdefault(word, set()).add(cls)

    def add_name(entry: str, whole: str, part: str) -> None:
        tokens = _tokens(entry)
        if len(tokens) == 1:
            add(tokens[0], whole)
        for token in tokens:
            if token not in stop:
                add(token, part)

    faker = _faker_names(sources.faker_locales)
    for cls in ("first_name", "surname"):
        for name in faker[cls]:
            for token in _tokens(name):
                if token not in stop:
                    add(token, cls)
    for country in _faker_countries():
        add_name(country, "country", "place_part")
    for town in _tsv_column("towns.tsv", 1):
        add_name(town, "town", "place_part")
    for town in americas_towns():  # GeoNames places of the Americas (country_data)
        add_name(town, "town", "place_part")
    for province in _tsv_column("provinces.tsv", 1):
        add_name(province, "province", "place_part")
    if sources.gazetteer is not None:
        folder = Path(sources.gazetteer)
        for cls in ("first_name", "surname"):
            for entry in _gazetteer_lines(folder, GAZETTEER_FILES[cls]):
                for token in _tokens(entry):
                    if token not in stop:
                        add(token, cls)
        for entry in _gazetteer_lines(folder, GAZETTEER_FILES["town"]):
            add_name(entry, "town", "place_part")
        for entry in _gazetteer_lines(folder, GAZETTEER_FILES["province"]):
            add_name(entry, "province", "place_part")
        for entry in _gazetteer_lines(folder, GAZETTEER_FILES["street"]):
            for token in _tokens(entry):
                if token not in stop and not token.isdigit():
                    add(token, "street_part")
        for entry in _gazetteer_lines(folder, GAZETTEER_FILES["hospital"]):
            for token in _tokens(entry):
                if token not in stop:
                    add(token, "hospital_part")
        for entry in _gazetteer_lines(folder, GAZETTEER_FILES["profession"]):
            for token in _tokens(entry):
                if token not in stop:
                    add(token, "profession")
    for name in words("hypocorisms"):
        add(name, "nickname")
    for word in UNITS.split():
        add(word, "number_word")
    for word in _calendar_words():
        add(word, "calendar_word")
    for word in _kinship_words():
        for token in _tokens(word):
            add(token, "kinship")
    ranked = _lexeme_ranks(sources.common_words)
    for rank, word in enumerate(ranked):
        add(word, "common_word")
        if rank < sources.frequent_words:
            add(word, "frequent_word")
    for cls, extra in sources.extra.items():
        for word in extra:
            add(word, cls)
    # the accent-less spelling of a word gets every class of its accented forms
    for word, cls_set in list(classes.items()):
        plain = lower_without_accents(word)
        if plain != word:
            classes.setdefault(plain, set()).update(cls_set)
    return classes


def case_forms(word: str) -> list[str]:
    """The spellings a word is keyed by: lower case, a capital first, all capitals."""
    return list(dict.fromkeys((word, word[:1].upper() + word[1:], word.upper())))


def write_word2vec(classes: dict[str, set[str]], path: Path) -> int:
    """Write the table in word2vec text format (one row a spelling, one column a class);
    returns the number of words (before their case forms)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    words_ = sorted(w for w in classes if " " not in w)
    rows: dict[str, str] = {}
    for word in words_:
        vector = " ".join("1" if cls in classes[word] else "0" for cls in CLASSES)
        for form in case_forms(word):
            rows.setdefault(form, vector)
    with path.open("w", encoding="utf-8") as handle:
        handle.write(f"{len(rows)} {len(CLASSES)}\n")
        for form, vector in rows.items():
            handle.write(f"{form} {vector}\n")
    return len(words_)
