"""The generalisation operators of a table's quasi-identifiers, one ladder per kind of column
(the policy's `[tables.generalise]`, evidence/targets.py), least general first:

- age: bands of so many years (`45` -> `40-49` for 10), or `*`;
- date: `2021-03-14` (ISO, or day/month/year with / - or .) -> `2021-03` (month) -> `2021`
  (year) -> `*`;
- postal_code: the first digits (`28029` -> `280` for 3, `28` for 2), or `*`;
- town: its province (a town of a single Spanish province, a province or a postal code:
  deid/surrogates/places.py; another place becomes `*`), or `*`;
- category (sex and any other column): `*`.

Level 0 is the value as written (stripped). A value that is not what its kind needs raises
ValueError naming the column and the row, never the value. Missing cells stay missing (``).
"""

import re
from collections.abc import Sequence
from functools import lru_cache

from ..deid.surrogates.places import geo, province_of
from ..lexicon import tagged_words
from .targets import Generalise

KINDS = ("age", "date", "postal_code", "town", "category")
# column names whose kind is guessed when `--qi` does not say it (`name:kind`): the English ones,
# then the Spanish ones (pipeline/data/es/quasi_identifier_columns.json)
ENGLISH_NAMES = {
    "age": ("age",),
    "date": ("date", "admission", "discharge"),
    "postal_code": ("postal_code", "postcode", "zip"),
    "town": ("town", "city"),
}
KIND_BY_NAME = {
    kind: names + tuple(tagged_words("quasi_identifier_columns", kind, "es"))
    for kind, names in ENGLISH_NAMES.items()
}
SUPPRESSED = "*"
ISO_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?")
DMY_DATE = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})")
POSTAL = re.compile(r"\d{5}")


def guess_kind(column: str) -> str:
    name = column.strip().lower()
    for kind, names in KIND_BY_NAME.items():
        if name in names or any(name.startswith(n + "_") or name.endswith("_" + n) for n in names):
            return kind
    return "category"


def ladder(kind: str, policy: Generalise) -> list:
    """The levels of a kind: level 0 (as written), then the policy's."""
    return [None, *getattr(policy, kind)]


def describe(kind: str, level) -> str:
    if level is None:
        return "as written"
    if level == SUPPRESSED:
        return "withheld (*)"
    if kind == "age":
        return f"{level}-year bands"
    if kind == "postal_code":
        return f"first {level} digits"
    return f"to {level}"


@lru_cache(maxsize=4096)
def _province(value: str) -> str:
    code = province_of(value)
    return geo().names[code] if code is not None else SUPPRESSED


def _age(value: str, width: int) -> str:
    try:
        age = int(float(value.replace(",", ".")))
    except ValueError:
        raise ValueError("not an age (expected a whole number of years)") from None
    if not 0 <= age <= 150:
        raise ValueError("not an age (expected 0 to 150)")
    low = age // width * width
    return f"{low}-{low + width - 1}"


def _date(value: str, level: str) -> str:
    m = ISO_DATE.fullmatch(value)
    if m:
        year, month = m.group(1), m.group(2)
    else:
        m = DMY_DATE.fullmatch(value)
        if not m:
            raise ValueError("not a date (expected YYYY-MM-DD or DD/MM/YYYY)")
        year, month = m.group(3), m.group(2)
    if not 1 <= int(month) <= 12:
        raise ValueError("not a date (month out of range)")
    return f"{year}-{int(month):02d}" if level == "month" else year


def _postal(value: str, digits: int) -> str:
    if not POSTAL.fullmatch(value):
        raise ValueError("not a postal code (expected five digits)")
    return value[:digits]


def generalise(kind: str, value, level) -> str:
    """The value of one cell at one level of its kind's ladder."""
    text = "" if value is None else str(value).strip()
    if level is None or text == "":
        return text
    if level == SUPPRESSED:
        return SUPPRESSED
    if kind == "age":
        return _age(text, int(level))
    if kind == "date":
        return _date(text, str(level))
    if kind == "postal_code":
        return _postal(text, int(level))
    if kind == "town":
        return _province(text)
    raise ValueError(f"no generalisation {level!r} for a {kind} column")


def generalise_column(column: str, kind: str, values: Sequence, level) -> list[str]:
    """Every cell of a column at a level; ValueError names the column and the row (from 1)."""
    out = []
    for i, value in enumerate(values):
        try:
            out.append(generalise(kind, value, level))
        except ValueError as err:
            raise ValueError(f"column {column!r}, row {i + 1}: {err}") from None
    return out
