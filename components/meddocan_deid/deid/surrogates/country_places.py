"""TERRITORIO surrogates of the report's country (`ctx.country`, meddocan_deid.country): Spain's
are `places.territories` (provinces that agree); a report of the Americas gets places of its
country (`country_data`: GeoNames cities, pycountry's divisions).

A value is read part by part (`Coyoacán, CDMX`, `Lanús (Buenos Aires)`): a postal code in the
country's shape (`C.P. 06700`, `C1425ABC`, `8320000`) gets new digits and letters of the same
shape, prefix kept; a Guatemalan zone (`zona 10`) another zone of the country
(`street_numbering`); a first-level division (`Jalisco`, `Antioquia`) another division of the
same country; a city another city of 15,000 inhabitants or more of the same country; a
corregimiento of Panamá (`corregimientos.tsv`: `Betania`, `Pueblo Nuevo`) another corregimiento,
written as the value was (`corregimiento de Betania` keeps its type word), unless it is also a
division or such a city of the country (`David`, `Juan Díaz`). A place of
another country of the Americas gets one of that country (a Mexican report that names Texas gets
a US state); a Spanish place, Spain's surrogate. A place the tables do not know (a colonia, a
barrio, a comuna of a city: `Roma Norte`, `Palermo`) gets an invented neighbourhood name
(`Jardines de San Rafael`, `Lomas de El Prado`), never random letters. Keyed like every
surrogate: the same value, the same surrogate in a report.
"""

import re
import string
from functools import cache

from ...country_data import (
    SPAIN,
    corregimiento_countries,
    corregimiento_names,
    countries,
    divisions,
    place_countries,
    places,
)
from ...lexicon import lookup_key
from . import places as spain
from . import street_numbering
from .common import Context, case_like, choose
from .names import name_lists
from .tables import words

MIN_POPULATION = 15000  # surrogate cities: the larger places only, which read as cities
# the code ends at its last character that is no blank or dot (or is one character), so the
# trailing blanks and dots are matched once, not again after each character of the code
_PREFIX = re.compile(
    r"^(?P<pre>(?:c\.?\s?p\.?|cpa|zip|código postal)[\s:.-]*)?"
    r"(?P<code>.*?[^\s.]|.)(?P<post>[\s.]*)$",
    re.I,
)
NEIGHBOURHOOD = (
    "{saint}",
    "Jardines de {saint}",
    "Lomas de {place_word}",
    "Villa {place_word}",
    "{place_word}",
    "Colinas de {saint}",
    "Residencial {place_word}",
    "Barrio {virgin}",
    "Ampliación {place_word}",
    "Villa {given}",
)


@cache
def _kinds(country: str) -> tuple[dict[str, str], dict[str, str]]:
    """(folded city -> city, folded division -> division) of `country`."""
    return (
        {lookup_key(n): n for n in places(country)},
        {lookup_key(n): n for n in divisions(country)},
    )


@cache
def division_names(country: str) -> tuple[str, ...]:
    return tuple(sorted(_kinds(country)[1].values()))


@cache
def big_cities(country: str) -> tuple[str, ...]:
    divisions_f = _kinds(country)[1]
    return tuple(
        sorted(n for n in places(country, MIN_POPULATION) if lookup_key(n) not in divisions_f)
    )


_ANY_CODE = re.compile(r"\d{4,7}")


def postal_shape(country: str, value: str) -> re.Match | None:
    """The match of a postal code of `country`, or of four to seven digits (another country's
    code), with a `C.P.`, `CP`, `CPA` or `ZIP` before it; else None."""
    m = _PREFIX.match(value.strip())
    if m is None:
        return None
    code = m.group("code")
    if countries()[country].postal.fullmatch(code) or _ANY_CODE.fullmatch(code):
        return m
    return None


def postal_code(ctx: Context, text: str, m: re.Match) -> str | None:
    """A new code of the same shape: each digit and letter redrawn (the first digit not 0)."""
    code = m.group("code")

    def make(rng, attempt):
        out = []
        for i, ch in enumerate(code):
            if ch.isdigit():
                out.append(rng.choice(string.digits[1:] if i == 0 else string.digits))
            elif ch.isalpha():
                out.append(rng.choice(string.ascii_uppercase))
            else:
                out.append(ch)
        return (m.group("pre") or "") + "".join(out) + m.group("post")

    return ctx.draw("postcode", text.strip(), make, shape_fallback=False)


def _owner(ctx: Context, key: str) -> str | None:
    """The country of the Americas whose place `key` is (the report's when it has one)."""
    owners = place_countries().get(key, frozenset())
    if ctx.country in owners:
        return ctx.country
    return min(owners) if owners else None


# `corregimiento de Betania` written whole: the type word kept
_CORREGIMIENTO_HEAD = re.compile(r"(?i)^(?P<head>corregimiento\s+(?:de\s+)?)(?P<name>\S.*)$")


def corregimiento_owner(ctx: Context, key: str) -> str | None:
    """The country whose corregimiento `key` is, the report's first; None when it is none, or
    it is a division or a city of 15,000 inhabitants or more of that country, or the place of
    another country of the Americas (`Santa Ana` in a Salvadoran report)."""
    owners = corregimiento_countries().get(key, frozenset())
    if ctx.country in owners:
        country = ctx.country
    elif owners and key not in place_countries():
        country = min(owners)
    else:
        return None
    if key in _kinds(country)[1] or key in {lookup_key(n) for n in big_cities(country)}:
        return None
    return country


def corregimiento(ctx: Context, value: str, country: str) -> str | None:
    """Another corregimiento of `country`, in the value's case."""
    pool = tuple(n for n in corregimiento_names(country) if lookup_key(n) != lookup_key(value))
    new = ctx.draw(
        f"corregimiento-{country}", value, lambda rng, a: choose(rng, pool), shape_fallback=False
    )
    return None if new is None else case_like(value, new)


def is_country_place(ctx: Context, value: str) -> bool:
    """`value` is a city, a division or a corregimiento that `place` has a surrogate for."""
    key = lookup_key(value)
    return key in place_countries() or corregimiento_owner(ctx, key) is not None


def place(ctx: Context, value: str) -> str | None:
    """A city, a division or a corregimiento of the country the value names (see the
    module)."""
    key = lookup_key(value)
    owner = corregimiento_owner(ctx, key)
    if owner is not None:
        return corregimiento(ctx, value, owner)
    country = _owner(ctx, key)
    if country is None:
        return None
    cities, divs = _kinds(country)
    pool = division_names(country) if key in divs else big_cities(country)
    new = ctx.draw(
        f"place-{country}", value, lambda rng, a: choose(rng, pool), shape_fallback=False
    )
    return None if new is None else case_like(value, new)


def city(ctx: Context, value: str = "") -> str | None:
    """A city of the report's country (for a `{town}` slot: `Hospital de {town}`)."""
    pool = big_cities(ctx.country)
    new = ctx.draw("city", value or "-", lambda rng, a: choose(rng, pool), shape_fallback=False)
    return None if new is None else (case_like(value, new) if value else new)


def division(ctx: Context, value: str = "") -> str | None:
    """A first-level division of the report's country (a `{province}` slot)."""
    pool = division_names(ctx.country)
    new = ctx.draw("division", value or "-", lambda rng, a: choose(rng, pool), shape_fallback=False)
    return None if new is None else (case_like(value, new) if value else new)


def neighbourhood(ctx: Context, value: str) -> str | None:
    """An invented neighbourhood name, in the value's case."""
    male, female, *_rest = name_lists(ctx.gaz, ctx.country)

    def make(rng, attempt):
        template = rng.choice(NEIGHBOURHOOD)
        slots = {
            "saint": choose(rng, words("saint")),
            "place_word": choose(rng, words("place_word")),
            "virgin": choose(rng, words("virgin")),
            "given": choose(rng, male + female),
        }
        return template.format(**slots)

    new = ctx.draw("neighbourhood", value, make, shape_fallback=False)
    return None if new is None else case_like(value, new)


def zone(ctx: Context, value: str) -> str | None:
    """A zone of a city that numbers them (`zona 10`): another of the country's zones."""
    return ctx.draw(
        "zone",
        value,
        lambda rng, a: street_numbering.zone(rng, value, ctx.country),
        shape_fallback=False,
    )


def territories(text: str, label: str, ctx: Context) -> str | None:
    """TERRITORIO: Spain's surrogates in a Spanish report; otherwise see the module."""
    if ctx.country == SPAIN:
        return spain.territories(text, label, ctx)
    value = text.strip()
    if not value:
        return None
    m = postal_shape(ctx.country, value)
    if m is not None:
        return spain.around(text, postal_code(ctx, value, m))
    if street_numbering.ZONE.fullmatch(value):  # `zona 10` of a Guatemalan report
        return spain.around(text, zone(ctx, value))
    head = _CORREGIMIENTO_HEAD.match(value)
    owners = corregimiento_countries().get(lookup_key(head.group("name")), ()) if head else ()
    if head is not None and owners:  # named a corregimiento: one of its country
        country = ctx.country if ctx.country in owners else min(owners)
        new = corregimiento(ctx, head.group("name"), country)
        return None if new is None else spain.around(text, head.group("head") + new)
    if is_country_place(ctx, value):  # `24 de Diciembre` too: a corregimiento's digits
        return spain.around(text, place(ctx, value))
    if any(c.isdigit() for c in value):
        return None  # digits beside words we do not read: the tag
    if spain.province_of(value) is not None or lookup_key(value) in spain.geo().communities:
        return spain.territories(text, label, ctx)  # a Spanish place in a report of the Americas
    if spain.is_place_list(value):
        return spain.each_place(text, value, label, ctx, territories)
    return spain.around(text, neighbourhood(ctx, value))
