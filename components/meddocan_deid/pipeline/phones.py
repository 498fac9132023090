"""Phone numbers of each national plan, checked with `phonenumbers` (Google's libphonenumber
metadata): the checks behind the `phone_cc` and `phone_national` kinds of
`configs/patterns/identifiers.jsonl`.

* `with_country_code(value)`: a number written with `+` or `00` and a country code (`+52 55
  1234 5678`, `+1 (809) 555-0123`, `00 54 9 11 4567-8901`) that is valid in that country's
  plan. Spain's `+34` is left to the `phone_es` check, whose grouping rules the Spanish
  corpus set.
* `national(value, region)`: a number written the national way (`(011) 4567-8901`, `310 555
  1234`, `9 8765 4321`) that is valid in the plan of `region` (ISO 3166 alpha-2), when the
  document's country is known.

Neither accepts what a clinical value looks like: a date (`24-03-2024`), a number grouped
by thousands (`1.234.567`) or with decimals (`7,35`), or separators no phone is written with
(two kinds mixed, a group of one digit after the first). Units after a value and code cues
before it are checked by the identifiers component (its word lists). Pure functions over a
string; no spaCy object.
"""

import re

import phonenumbers

_DATE = re.compile(r"\d{1,2}([-/.])\d{1,2}\1(?:\d{2}|\d{4})|\d{4}([-/.])\d{1,2}\2\d{1,2}")
_THOUSANDS = re.compile(r"\d{1,3}(?:[.,]\d{3})+(?:,\d+)?")
_DECIMAL = re.compile(r"(?<!\d)\d+,\d+")  # from a run's start only: linear when scanned
_INTERNATIONAL = re.compile(r"^\(?(?:\+|00)")


def phone_like(value: str) -> bool:
    """The national part of a number (after its country code) written as a phone number: not
    a date, a thousands-grouped or decimal number; one kind of separator between the groups
    (or spaces, then dashes: `(011) 4567-8901`; brackets around the first group), no group
    of one digit after the first, at most six groups."""
    body = value.strip()
    if _DATE.fullmatch(body) or _THOUSANDS.fullmatch(body) or _DECIMAL.fullmatch(body):
        return False
    inner = re.sub(r"^\(\d{1,5}\)\s?", lambda m: re.sub(r"\D", "", m.group()) + " ", body)
    written = [s.strip() or " " for s in re.findall(r"\D+", inner)]
    separators = set(written)
    groups = re.split(r"\D+", inner)
    return (
        separators <= {" ", "-", ".", "/"}
        # one kind, or spaces then dashes (`(011) 4567-8901`, `9 11 4567-8901`)
        and (len(separators) <= 1 or "".join(written).lstrip(" ").strip("-") == "")
        and all(len(g) >= 2 for g in groups[1:])
        and len(groups) <= 6
    )


def parse_international(value: str) -> phonenumbers.PhoneNumber | None:
    """The number written with `+` or `00` and its country code, or None."""
    body = value.strip().lstrip("(")
    if body.startswith("00"):
        body = "+" + body[2:].lstrip()
    if not body.startswith("+"):
        return None
    try:
        return phonenumbers.parse(body, None)
    except phonenumbers.NumberParseException:
        return None


def with_country_code(value: str) -> bool:
    """A valid number of a plan other than Spain's, with its country code."""
    number = parse_international(value)
    if number is None or number.country_code == 34 or not phonenumbers.is_valid_number(number):
        return False
    code = re.escape(str(number.country_code))
    rest = re.sub(rf"^\(?(?:\+\s?|00\s?){code}\)?[\s.\-]*", "", value.strip())
    return phone_like(rest)


def parse_national(value: str, region: str) -> phonenumbers.PhoneNumber | None:
    """The number as `region` writes it (with or without its trunk prefix), or None."""
    try:
        return phonenumbers.parse(value.strip(), region.upper())
    except phonenumbers.NumberParseException:
        return None


def national(value: str, region: str | None) -> bool:
    """A valid number of the plan of `region` written the national way (no country code);
    False without a region."""
    if not region or _INTERNATIONAL.match(value.strip()):
        return False
    number = parse_national(value, region)
    return (
        number is not None
        and phonenumbers.is_valid_number_for_region(number, region.upper())
        and phone_like(value)
    )
