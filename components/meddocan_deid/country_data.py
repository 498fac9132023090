"""What the de-identifier knows of each Spanish-speaking country of the Americas: its places,
health institutions, health-centre head words, dialling codes and postal code shapes.

Data files in `pipeline/data/americas/` (shipped with the package): `countries.tsv` (codes,
Faker locales, dialling codes, postal shapes, demonyms), `places.tsv` (GeoNames populated
places, CC BY 4.0: experiments/americas_places.py), `institutions.tsv` and `centre_heads.tsv`
(public names written by hand), `country_cues.tsv` (identifier shapes and keys, health-system
and address words that country detection scores), `hospitals.tsv` (reference hospitals that
country detection counts, written by hand), `corregimientos.tsv` (Panamá's corregimientos of its
main districts, public names written by hand), `surnames_us_hispanic.tsv` (US Census 2010,
public domain: experiments/hispanic_surnames.py). First-level divisions (states, provinces,
regions, departments) are read from pycountry's ISO 3166-2 data at run time, not copied.
Spain's own places stay in `deid/surrogates/data/` (provinces, communities, towns). Reads files
only.
"""

import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pycountry

from .id_checks import CHECKS
from .labels import labels_with
from .lexicon import lookup_key, words

DATA = Path(__file__).parent / "pipeline" / "data" / "americas"
# Spain's places: the surrogates' tables (read by deid/surrogates/tables.py; read here by path,
# so that this module needs nothing of the de-identification package)
SPAIN_DATA = Path(__file__).parent / "deid" / "surrogates" / "data"
SPAIN = "ES"
KINDS = (
    "system",
    "social_security",
    "insurer",
    "programme",
    "ministry",
    "agency",
    "university",
    "company",
)
# kinds that say where someone studied, not where the report was written: no country evidence
# (MEDDOCAN's Spanish reports name 8 universities of the Americas in 750 reports)
KINDS_NOT_EVIDENCE = ("university",)
# the labels a centre head word may give: those of the places where care is given
CENTRE_LABELS = labels_with("care_centre")
PHONE_CHECK = "phone"  # a cue's check: a number valid in its country's plan (phonenumbers)
# a cue's check: a number valid in its country's plan and in no other country's (phonenumbers)
PHONE_ONE_CHECK = "phone_one"
# Mexican states whose official name adds a hero's name after `de`, written without it
_SHORT_FORMS = {"MX"}
# subdivision types that are not the first level reports name (the Dominican regions group
# its provinces)
_SKIP_TYPES = {"DO": {"Region"}}
# divisions that reports write as common words (`Hospital Central`, `la cordillera`): not
# counted by country detection
_WORD_DIVISIONS = {"PY": {"Central", "Cordillera"}}
# towns named by a phrase of health text (`Ministerio ... para la Salud`, in capitals too): not
# counted by country detection
_PHRASE_TOWNS = {"CU": {"La Salud"}}


class DataFileError(ValueError):
    """A data file of this module is missing or malformed (the message names file and line)."""


class Country(NamedTuple):
    code: str
    name: str
    faker_locale: str | None
    dialling: tuple[str, ...]  # `52`, `1-809` (+1 with that area code)
    postal: re.Pattern
    demonyms: tuple[str, ...]


class Institution(NamedTuple):
    country: str
    kind: str
    name: str
    aliases: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


class CentreHead(NamedTuple):
    countries: tuple[str, ...]
    label: str
    anywhere: bool  # the head names no Spanish centre: found in every document
    follows: str  # number, name or either
    pattern: re.Pattern  # over lower-case, accent-free text


class Corregimiento(NamedTuple):
    country: str
    name: str
    district: str
    province: str  # a first-level division of `country` (pycountry's name)


class CountryCue(NamedTuple):
    country: str
    weight: float
    check: str | None  # a name of id_checks.CHECKS, PHONE_CHECK, or None
    pattern: re.Pattern


def _numbered_rows(name: str, width: tuple[int, int]) -> list[tuple[int, tuple[str, ...]]]:
    """(line number, fields) of the tab-separated rows of `name` (comments `#` and blank lines
    skipped), each with `width[0]` to `width[1]` fields (missing trailing fields are empty)."""
    path = DATA / name
    if not path.exists():
        raise DataFileError(f"{path}: data file not found")
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if not width[0] <= len(fields) <= width[1]:
            raise DataFileError(
                f"{path}:{lineno}: expected {width[0]} to {width[1]} tab-separated fields, "
                f"got {len(fields)}"
            )
        out.append((lineno, tuple(fields + [""] * (width[1] - len(fields)))))
    return out


def _rows(name: str, width: tuple[int, int]) -> list[tuple[str, ...]]:
    """The fields of the rows of `name` (see `_numbered_rows`)."""
    return [fields for _lineno, fields in _numbered_rows(name, width)]


@cache
def countries() -> dict[str, Country]:
    """ISO code -> Country, Spain first, in file order."""
    out = {}
    for code, name, locale, dialling, postal, demonyms in _rows("countries.tsv", (6, 6)):
        try:
            shape = re.compile(r"(?:" + postal + r")")
        except re.error as err:
            raise DataFileError(
                f"{DATA / 'countries.tsv'}: {code}: bad postal shape ({err})"
            ) from None
        out[code] = Country(
            code,
            name,
            None if locale == "-" else locale,
            tuple(d for d in dialling.split("|") if d),
            shape,
            tuple(d for d in demonyms.split("|") if d),
        )
    return out


def check_country(code: str) -> str:
    """`code` (upper-cased) when it is a known country, else ValueError naming the known ones."""
    up = code.strip().upper()
    if up not in countries():
        raise ValueError(f"unknown country {code!r} (expected one of {', '.join(countries())})")
    return up


@cache
def _places() -> dict[str, tuple[tuple[str, int, str], ...]]:
    found: dict[str, list[tuple[str, int, str]]] = {}
    path = DATA / "places.tsv"
    for country, _kind, name, population, admin1 in _rows("places.tsv", (5, 5)):
        if not population.isdigit():
            raise DataFileError(f"{path}: {name}: population {population!r} is not a number")
        found.setdefault(country, []).append((name, int(population), admin1))
    return {c: tuple(v) for c, v in found.items()}


def places(country: str, min_population: int = 0) -> tuple[str, ...]:
    """The populated places of `country` with at least `min_population` inhabitants, most
    populous first (GeoNames)."""
    return tuple(n for n, pop, _a in _places().get(country, ()) if pop >= min_population)


@cache
def divisions(country: str) -> tuple[str, ...]:
    """The first-level divisions of `country` (pycountry's ISO 3166-2 names; a Mexican state
    also by its short form, `Michoacán` for `Michoacán de Ocampo`); in the US, the states whose
    places are listed."""
    subs = pycountry.subdivisions.get(country_code=country) or ()
    if country == "US":
        states = {a for _n, _p, a in _places().get("US", ())}
        subs = [s for s in subs if s.code.split("-")[1] in states]
    names = []
    for sub in sorted(subs, key=lambda s: s.code):
        if sub.type in _SKIP_TYPES.get(country, ()):
            continue
        names.append(sub.name)
        head, sep, _rest = sub.name.partition(" de ")
        # `Ciudad de México` has no short form: `Ciudad` is no state
        if country in _SHORT_FORMS and sep and " " not in head and head != "Ciudad":
            names.append(head)
    return tuple(dict.fromkeys(names))


@cache
def corregimientos() -> tuple[Corregimiento, ...]:
    """The corregimientos of `corregimientos.tsv`, in file order (DataFileError naming the file,
    line and problem: an unknown country, a province that is no division of its country, a
    corregimiento listed twice in one district)."""
    path = DATA / "corregimientos.tsv"
    out, seen = [], set()
    for lineno, (country, name, district, province) in _numbered_rows("corregimientos.tsv", (4, 4)):
        where = f"{path}:{lineno}"
        if country not in countries() or country == SPAIN:
            raise DataFileError(f"{where}: unknown country {country!r}")
        if province not in divisions(country):
            raise DataFileError(f"{where}: {province!r} is no province of {country}")
        if not name or not district:
            raise DataFileError(f"{where}: empty corregimiento or district")
        if (country, district, name) in seen:
            raise DataFileError(f"{where}: {name!r} listed twice in {district}")
        seen.add((country, district, name))
        out.append(Corregimiento(country, name, district, province))
    return tuple(out)


def corregimiento_names(country: str) -> tuple[str, ...]:
    """The corregimientos of `country` (each name once, in file order); none outside Panamá."""
    return tuple(dict.fromkeys(c.name for c in corregimientos() if c.country == country))


def _corregimiento_field_countries(field: str) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for corr in corregimientos():
        out.setdefault(lookup_key(getattr(corr, field)), set()).add(corr.country)
    return {k: frozenset(v) for k, v in out.items()}


@cache
def corregimiento_countries() -> dict[str, frozenset[str]]:
    """Folded corregimiento name -> the countries that have one."""
    return _corregimiento_field_countries("name")


@cache
def district_countries() -> dict[str, frozenset[str]]:
    """Folded district name (of the districts whose corregimientos are listed) -> countries."""
    return _corregimiento_field_countries("district")


@cache
def institutions() -> tuple[Institution, ...]:
    out = []
    path = DATA / "institutions.tsv"
    for country, kind, name, aliases in _rows("institutions.tsv", (3, 4)):
        if kind not in KINDS:
            raise DataFileError(
                f"{path}: {name}: kind {kind!r} (expected one of {', '.join(KINDS)})"
            )
        if country not in countries():
            raise DataFileError(f"{path}: {name}: unknown country {country!r}")
        out.append(Institution(country, kind, name, tuple(a for a in aliases.split("|") if a)))
    return tuple(out)


@cache
def reference_hospitals() -> dict[str, tuple[str, str]]:
    """Folded name or other name of a reference hospital of `hospitals.tsv` -> (its country,
    its folded name): the hospital a report names, counted once whichever name it writes."""
    path = DATA / "hospitals.tsv"
    out: dict[str, tuple[str, str]] = {}
    for lineno, (country, name, others) in _numbered_rows("hospitals.tsv", (2, 3)):
        if country not in countries() or country == SPAIN:
            raise DataFileError(
                f"{path}:{lineno}: {name}: not a country of the Americas {country!r}"
            )
        key = lookup_key(name)
        for alias in (name, *(a for a in others.split("|") if a)):
            folded = lookup_key(alias)
            if not folded or out.get(folded, (country, key)) != (country, key):
                raise DataFileError(f"{path}:{lineno}: {alias!r}: empty or another hospital's")
            out[folded] = (country, key)
    return out


@cache
def hospital_names_alone() -> frozenset[str]:
    """Folded names of `hospitals.tsv` that name their hospital alone: an acronym (`HNERM`) or a
    name with its own head (`Instituto Nacional de Salud del Niño`). The others are people's
    names (`Calixto García`, `Manuel Fajardo`) that Spanish reports give to patients and
    doctors: country detection counts them only after a hospital's head word."""
    out = set()
    for _lineno, (_country, name, others) in _numbered_rows("hospitals.tsv", (2, 3)):
        for alias in (name, *(a for a in others.split("|") if a)):
            folded = lookup_key(alias)
            if (alias.isupper() and " " not in alias) or folded.startswith(
                tuple(lookup_key(w) for w in words("body_heads", "es"))
            ):
                out.add(folded)
    return frozenset(out)


@cache
def centre_heads() -> tuple[CentreHead, ...]:
    out = []
    path = DATA / "centre_heads.tsv"
    for codes, label, where, follows, regex in _rows("centre_heads.tsv", (5, 5)):
        if label not in CENTRE_LABELS or where not in ("any", "country"):
            raise DataFileError(f"{path}: {regex[:30]}: label {label!r} or where {where!r}")
        if follows not in ("number", "name", "either"):
            raise DataFileError(f"{path}: {regex[:30]}: follows {follows!r}")
        try:
            pattern = re.compile(r"(?<![\w.])(?:" + regex + r")(?!\w)")
        except re.error as err:
            raise DataFileError(f"{path}: {regex[:30]}: bad pattern ({err})") from None
        out.append(CentreHead(tuple(codes.split("|")), label, where == "any", follows, pattern))
    return tuple(out)


@cache
def country_cues() -> tuple[CountryCue, ...]:
    """The cues of `country_cues.tsv`, in file order (DataFileError naming the file, line and
    problem: an unknown country or check, a weight that is no positive number, a bad
    expression)."""
    path = DATA / "country_cues.tsv"
    out = []
    for lineno, (country, weight, check, regex, _what) in _numbered_rows(
        "country_cues.tsv", (4, 5)
    ):
        where = f"{path}:{lineno}"
        if country not in countries():
            raise DataFileError(f"{where}: unknown country {country!r}")
        try:
            value = float(weight)
        except ValueError:
            value = 0.0
        if not value > 0:
            raise DataFileError(f"{where}: weight {weight!r} is not a positive number")
        if check not in ("-", PHONE_CHECK, PHONE_ONE_CHECK) and check not in CHECKS:
            raise DataFileError(
                f"{where}: unknown check {check!r} (expected -, {PHONE_CHECK}, "
                f"{PHONE_ONE_CHECK} or one of "
                f"{', '.join(sorted(CHECKS))})"
            )
        try:
            pattern = re.compile(regex)
        except re.error as err:
            raise DataFileError(f"{where}: bad expression ({err})") from None
        out.append(CountryCue(country, value, None if check == "-" else check, pattern))
    return tuple(out)


@cache
def frequent_surnames(limit: int = 5000) -> tuple[str, ...]:
    """The folded surnames borne by the most Hispanic people in the US, most frequent first
    (US Census 2010; the one licensed surname frequency list within reach)."""
    return tuple(
        lookup_key(name) for _rank, name, _n, _pct in _rows("surnames_us_hispanic.tsv", (4, 4))
    )[:limit]


@cache
def surname_counts() -> dict[str, int]:
    """Folded surname -> the number of its Hispanic bearers in the US (Census 2010), for the
    5,000 most frequent."""
    path = DATA / "surnames_us_hispanic.tsv"
    out: dict[str, int] = {}
    for _rank, name, count, _pct in _rows("surnames_us_hispanic.tsv", (4, 4)):
        if not count.isdigit():
            raise DataFileError(f"{path}: {name}: count {count!r} is not a number")
        out.setdefault(lookup_key(name), int(count))
    return out


@cache
def place_countries(min_population: int = 0) -> dict[str, frozenset[str]]:
    """Folded place name (a city of `min_population` inhabitants or more, or a division) ->
    the countries of the Americas that have one."""
    out: dict[str, set[str]] = {}
    for code in countries():
        if code == SPAIN:
            continue
        for name in places(code, min_population) + divisions(code):
            out.setdefault(lookup_key(name), set()).add(code)
    return {k: frozenset(v) for k, v in out.items()}


@cache
def detection_places() -> dict[str, frozenset[str]]:
    """The places country detection counts, folded -> their countries: the cities of
    `towns.txt` (15,000 inhabitants or more, not a first name, a surname or a Spanish word:
    experiments/americas_town_list.py) and the divisions that are no listed name and no
    common word (`_WORD_DIVISIONS`); neither one named like another country (Cuba's town
    `Venezuela`: a report that writes it names the country) nor a phrase of health text
    (`_PHRASE_TOWNS`)."""
    path = DATA / "towns.txt"
    if not path.exists():
        raise DataFileError(f"{path}: data file not found")
    towns = {
        lookup_key(line.strip())
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    names = {lookup_key(n) for n in _listed_names()}
    # a town or division named like another country (Cuba's `Venezuela`) names that country
    country_names = {lookup_key(c.name): code for code, c in countries().items()}
    out: dict[str, set[str]] = {}
    for code in countries():
        if code == SPAIN:
            continue
        for name in places(code):
            key = lookup_key(name)
            if country_names.get(key, code) != code or name in _PHRASE_TOWNS.get(code, ()):
                continue
            if key in towns:
                out.setdefault(key, set()).add(code)
        for name in divisions(code):
            key = lookup_key(name)
            if country_names.get(key, code) != code:
                continue
            if key not in names and name not in _WORD_DIVISIONS.get(code, ()):
                out.setdefault(key, set()).add(code)
    return {k: frozenset(v) for k, v in out.items()}


def _listed_names() -> list[str]:
    """The first names and surnames the surrogates draw from (deid/surrogates/data/names.tsv)."""
    path = SPAIN_DATA / "names.tsv"
    if not path.exists():
        raise DataFileError(f"{path}: data file not found")
    return [
        line.split("\t")[2].strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#") and line.count("\t") == 2
    ]


@cache
def institution_countries() -> dict[str, tuple[Institution, ...]]:
    """Folded name or alias -> the institutions that bear it."""
    out: dict[str, list[Institution]] = {}
    for inst in institutions():
        for name in inst.names:
            out.setdefault(lookup_key(name), []).append(inst)
    return {k: tuple(v) for k, v in out.items()}


@cache
def spanish_places() -> frozenset[str]:
    """Folded names of Spain's towns, provinces (every spelling) and communities."""
    names: set[str] = set()
    for file, columns in (
        ("towns.tsv", (1,)),
        ("provinces.tsv", (1, 3)),
        ("communities.tsv", (0, 1)),
    ):
        path = SPAIN_DATA / file
        if not path.exists():
            raise DataFileError(f"{path}: data file not found")
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            for col in columns:
                if col < len(fields):
                    names.update(lookup_key(n.strip()) for n in fields[col].split("|") if n.strip())
    return frozenset(names)
