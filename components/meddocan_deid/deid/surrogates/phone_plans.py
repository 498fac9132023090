"""Phone and fax numbers of a national plan other than Spain's: a surrogate of the same
plan and type (`phonenumbers`: region and line type, fixed or mobile), in the original's
format.

`plan_of(text, country)` tells the plan: the country code where the number has one (`+52`,
`0054`; Spain's `+34` is left to the Spanish surrogates); else the plan of `country` (ISO
3166 alpha-2) when the number is valid there; else, without a country, the first plan of
`REGIONS` (the Spanish-speaking countries, then the US) in which it is valid, unless it is a
valid Spanish number. None: not a number of another plan.

`surrogate(text, region, ctx)` keeps what the number's plan shares with every number of the
country (the country code as written, a trunk `0`), and draws the other digits anew,
written with the original's separators, until the number is valid in the plan, of the same
type and region; first all of them, then keeping its first one or two digits (a mobile `9`
of Argentina or Chile), since no run of three digits of the original may survive
(`common.shares_digit_run`)."""

import random
import re
import string

import phonenumbers
from phonenumbers import PhoneNumberType

from .common import Context

DRAWS = 120
# where a number without a country code is looked for when the report's country is unknown:
# the Spanish-speaking countries by population, then the US
REGIONS = "MX CO AR PE VE CL GT EC BO CU DO HN PY SV NI CR PA UY PR GQ US".split()
_INTERNATIONAL = re.compile(r"^\s*\(?(?:\+|00)")
_EITHER = PhoneNumberType.FIXED_LINE_OR_MOBILE
_LINE = {PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE, _EITHER}


def _parse(text: str, region: str | None) -> phonenumbers.PhoneNumber | None:
    body = text.strip().lstrip("(")
    if body.startswith("00"):
        body = "+" + body[2:].lstrip()
    try:
        return phonenumbers.parse(body, region)
    except phonenumbers.NumberParseException:
        return None


def plan_of(text: str, country: str | None = None) -> str | None:
    """The region (ISO 3166 alpha-2) whose plan the number belongs to, or None."""
    if _INTERNATIONAL.match(text):
        number = _parse(text, None)
        if number is None or number.country_code == 34 or not phonenumbers.is_valid_number(number):
            return None
        return phonenumbers.region_code_for_number(number)
    if country is not None and country != "ES":
        number = _parse(text, country)
        valid = number is not None and phonenumbers.is_valid_number_for_region(number, country)
        return country if valid else None
    if country is None:
        spanish = _parse(text, "ES")
        if spanish is not None and phonenumbers.is_valid_number_for_region(spanish, "ES"):
            return None
        for region in REGIONS:
            number = _parse(text, region)
            if number is not None and phonenumbers.is_valid_number_for_region(number, region):
                return region
    return None


def same_type(a: int | None, b: int | None) -> bool:
    """The same line type, or one a plan cannot tell from the other (fixed or mobile)."""
    if a is None or b is None:
        return False
    return _same_type(a, b)


def _same_type(a: int, b: int) -> bool:
    # a plan that cannot tell fixed from mobile (`FIXED_LINE_OR_MOBILE`) matches either
    return a == b or (a in _LINE and b in _LINE and _EITHER in (a, b))


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


def surrogate(text: str, region: str, ctx: Context) -> str | None:
    """A number of `region`'s plan and the original's type, in the original's format."""
    international = bool(_INTERNATIONAL.match(text))
    original = _parse(text, None if international else region)
    if original is None:
        return None
    kind = phonenumbers.number_type(original)
    written = re.sub(r"\D", "", text)
    national = phonenumbers.national_significant_number(original)
    # the digits written before the national number: the country code, a trunk 0
    lead = len(written) - len(national) if written.endswith(national) else 0

    def make(rng: random.Random, attempt: int) -> str | None:
        keep = min(attempt // 8, 2)  # attempts 0-7 all new, then the first digit, then two
        for _ in range(DRAWS):
            digits = written[lead : lead + keep] + "".join(
                rng.choice(string.digits) for _ in range(len(written) - lead - keep)
            )
            candidate = _written(text, digits, lead)
            number = _parse(candidate, None if international else region)
            if (
                number is not None
                and phonenumbers.is_valid_number_for_region(number, region)
                and _same_type(phonenumbers.number_type(number), kind)
            ):
                return candidate
        return None

    # kind "phone": the digit-run rule leaves the country code out (common.shares_digit_run)
    return ctx.draw("phone", text, make, key_value=text)


def valid_in(text: str, region: str) -> bool:
    """Whether `text` is a valid number of `region`'s plan (as written: with its country code
    or the national way)."""
    number = _parse(text, None if _INTERNATIONAL.match(text) else region)
    return number is not None and phonenumbers.is_valid_number_for_region(number, region)


def number_type_of(text: str, region: str) -> int | None:
    """The line type of `text` in `region`'s plan, or None when it is no number there."""
    number = _parse(text, None if _INTERNATIONAL.match(text) else region)
    if number is None or not phonenumbers.is_valid_number_for_region(number, region):
        return None
    return phonenumbers.number_type(number)
