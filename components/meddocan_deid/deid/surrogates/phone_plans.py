"""Phone and fax numbers of a national plan other than Spain's: a surrogate of the same
plan and type (`phonenumbers`: region and line type, fixed or mobile), in the original's
format.

A value is read as the spans write it: MEDDOCAN's gold and the identifiers component leave a
leading `+` or `(` out (`52 55 1234 5678` of `+52 55 1234 5678`, `011) 4567-8901` of `(011)
4567-8901`). `read_number(text, region)` reads it: with its `+` or `00`; else, for a region,
the national way (the bracket put back); else, with a `+` put back, as a number with its
country code; else the national way of `region`.

`plan_of(text, country)` tells the plan: the country code where the number has one (Spain's
`+34` is left to the Spanish surrogates); else the plan of `country` (ISO 3166 alpha-2) when
the number is valid there; else, without a country, the first plan of `REGIONS` (the
Spanish-speaking countries, then the US) in which it is valid, unless it is a valid Spanish
number. None: not a number of another plan.

`surrogate(text, region, ctx)` keeps what the number's plan shares with every number of the
country (the country code as written, a trunk `0`), and draws the other digits anew,
written with the original's separators, until the number is valid in the plan, of the same
type and region; first all of them, then keeping its first one or two digits (a mobile `9`
of Argentina or Chile), since no run of three digits of the original may survive
(`common.shares_digit_run`). A number whose national writing inserts digits (Argentina's
mobile `011 15-4567-8901`) is written anew in the plan's own national format."""

import random
import re
import string
from typing import NamedTuple

import phonenumbers
from phonenumbers import PhoneNumberType

from .common import Context, shares_digit_run

DRAWS = 120
# where a number without a country code is looked for when the report's country is unknown:
# the Spanish-speaking countries by population, then the US
REGIONS = "MX CO AR PE VE CL GT EC BO CU DO HN PY SV NI CR PA UY PR GQ US".split()
_INTERNATIONAL = re.compile(r"^\s*\(?(?:\+|00)")
_EITHER = PhoneNumberType.FIXED_LINE_OR_MOBILE
LINE_TYPES = frozenset({PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE, _EITHER})


class Reading(NamedTuple):
    number: phonenumbers.PhoneNumber
    international: bool  # read with its country code (written, or its `+` left out)


def _parse(text: str, region: str | None) -> phonenumbers.PhoneNumber | None:
    body = text.strip()
    if re.match(r"^[^(]*\)", body):  # `011) 4567-8901`: the span left its bracket out
        body = "(" + body
    if body.lstrip("(").startswith("00"):
        body = "+" + body.lstrip("(")[2:].lstrip()
    try:
        return phonenumbers.parse(body, region)
    except phonenumbers.NumberParseException:
        return None


def _valid(number: phonenumbers.PhoneNumber | None, region: str | None) -> bool:
    if number is None:
        return False
    if region is None:
        return phonenumbers.is_valid_number(number)
    return phonenumbers.is_valid_number_for_region(number, region)


def read_number(text: str, region: str | None = None) -> Reading | None:
    """The valid number `text` reads as (see the module docstring), or None."""
    if _INTERNATIONAL.match(text):
        number = _parse(text, None)
        if number is not None and _valid(number, None):
            return Reading(number, True)
        return None
    if region is not None:
        number = _parse(text, region)
        if number is not None and _valid(number, region):
            return Reading(number, False)
    number = _parse("+" + text.strip(), None)
    if number is not None and _valid(number, None):
        return Reading(number, True)
    return None


def plan_of(text: str, country: str | None = None) -> str | None:
    """The region (ISO 3166 alpha-2) whose plan the number belongs to, or None."""
    if country is not None and country != "ES":
        read = read_number(text, country)
    elif country is None and _valid(_parse(text, "ES"), "ES"):
        return None  # a Spanish number written the national way
    else:
        read = read_number(text, None)
    if read is None and country is None:
        for region in REGIONS:
            if _valid(_parse(text, region), region):
                return region
        return None
    if read is None or read.number.country_code == 34:
        return None
    return phonenumbers.region_code_for_number(read.number)


def same_type(a: int | None, b: int | None) -> bool:
    """The same line type, or one a plan cannot tell from the other (fixed or mobile)."""
    if a is None or b is None:
        return False
    return a == b or (a in LINE_TYPES and b in LINE_TYPES and _EITHER in (a, b))


def _written(text: str, digits: str, start: int) -> str:
    """`text` with its digits from the `start`-th on replaced by `digits`."""
    out, n, it = [], 0, iter(digits)
    for ch in text:
        if ch.isdigit():
            out.append(ch if n < start else next(it))
            n += 1
        else:
            out.append(ch)
    return "".join(out)


def _read_as(text: str, region: str, international: bool) -> phonenumbers.PhoneNumber | None:
    """`text` read the way its original was: with its country code, or the national way."""
    if not international:
        return _parse(text, region)
    return _parse(text if _INTERNATIONAL.match(text) else "+" + text.strip(), None)


def surrogate(text: str, region: str, ctx: Context) -> str | None:
    """A number of `region`'s plan and the original's type, in the original's format."""
    read = read_number(text, region)
    if read is None:
        return None
    kind = phonenumbers.number_type(read.number)
    written = re.sub(r"\D", "", text)
    national = phonenumbers.national_significant_number(read.number)
    # the digits written before the national number: the country code, a trunk 0
    lead = len(written) - len(national) if written.endswith(national) else 0

    def make(rng: random.Random, attempt: int) -> str | None:
        keep = min(attempt // 8, 2)  # attempts 0-7 all new, then the first digit, then two
        if not written.endswith(national):
            return rewritten(rng)
        for _ in range(DRAWS):
            digits = written[lead : lead + keep] + "".join(
                rng.choice(string.digits) for _ in range(len(written) - lead - keep)
            )
            candidate = _written(text, digits, lead)
            number = _read_as(candidate, region, read.international)
            if (
                number is not None
                and phonenumbers.is_valid_number_for_region(number, region)
                and same_type(phonenumbers.number_type(number), kind)
                # the plan's prefixes may hold a run of the original (`0412` and `0414`)
                and not shares_digit_run(candidate, text, "phone")
            ):
                return candidate
        return None

    def rewritten(rng: random.Random) -> str | None:
        # the national way inserts digits (Argentina's mobile `011 15-...`): a new number of
        # the plan and type, its first digit kept (the mobile `9`), written in the plan's own
        # format (its grouping may differ: a new area code)
        code = str(read.number.country_code)
        for _ in range(5 * DRAWS):
            digits = national[:1] + "".join(
                rng.choice(string.digits) for _ in range(len(national) - 1)
            )
            number = _parse("+" + code + digits, None)
            if (
                number is not None
                and phonenumbers.is_valid_number_for_region(number, region)
                and same_type(phonenumbers.number_type(number), kind)
            ):
                style = (
                    phonenumbers.PhoneNumberFormat.INTERNATIONAL
                    if read.international
                    else phonenumbers.PhoneNumberFormat.NATIONAL
                )
                candidate = phonenumbers.format_number(number, style).lstrip("+")
                if not shares_digit_run(candidate, text, "phone"):
                    return candidate
        return None

    # kind "phone": the digit-run rule leaves the country code out (common.shares_digit_run)
    return ctx.draw("phone", text, make, key_value=text)


def number_type_of(text: str, region: str) -> int | None:
    """The line type of `text` in `region`'s plan (a `PhoneNumberType` value), or None when
    it is no number there."""
    read = read_number(text, region)
    if read is None or not phonenumbers.is_valid_number_for_region(read.number, region):
        return None
    return phonenumbers.number_type(read.number)


def valid_in(text: str, region: str) -> bool:
    """Whether `text` is a valid number of `region`'s plan (as written: with its country code
    or the national way)."""
    return number_type_of(text, region) is not None
