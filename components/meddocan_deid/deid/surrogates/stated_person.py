"""What a report states about its patient that an identifier holds too: the birth date
(a FECHAS span after a birth key: `Fecha de nacimiento:`, `F. nac.`, `nacida el`) and the
sex (a SEXO_SUJETO_ASISTENCIA span: `mujer`, `masculino`, `F`). A CURP or an RFC surrogate
agrees with them (`mexican_ids`). Read from the report's text and its PHI spans; the keys
and the sex words are word lists (`pipeline/data/es/birth_date_keys.txt`, `sex_words.json`)."""

import datetime as dt
import re
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from ...lexicon import lookup_key, tagged_words, words
from .dates import read_date

KEY_WINDOW = 40  # characters before a date in which its birth key stands
FEMALE = frozenset(lookup_key(w) for w in tagged_words("sex_words", "female"))
MALE = frozenset(lookup_key(w) for w in tagged_words("sex_words", "male"))


class StatedPerson(NamedTuple):
    birth: dt.date | None  # the birth date the report states (unshifted)
    sex: str | None  # "F" or "M" (`M` alone, read as mujer or masculino, is None)


@cache
def _birth_key() -> re.Pattern:
    keys = sorted((k for k in words("birth_date_keys") if k.strip()), key=len, reverse=True)
    alternatives = "|".join(
        r"\s*".join(re.escape(part) for part in key.lower().split()) for key in keys
    )
    return re.compile(rf"(?<!\w)(?:{alternatives})[\s:.\-]*$", re.IGNORECASE)


def _date(text: str) -> dt.date | None:
    reading = read_date(text)
    if reading is None:
        return None
    year, month, day = reading.year, reading.month, reading.day
    if year is None or month is None or day is None:
        return None
    try:
        return dt.date(year, month, day)
    except ValueError:
        return None


def read_sex(value: str) -> str | None:
    """`F` or `M` for a sex value that says it, else None."""
    key = lookup_key(value.strip(" :"))
    if key in FEMALE:
        return "F"
    if key in MALE:
        return "M"
    return None


def stated_person(text: str, spans: Sequence[tuple[str, int, int]]) -> StatedPerson:
    """The birth date after the first birth key and the first sex value that says one."""
    birth = sex = None
    key = _birth_key()
    for label, start, end in spans:
        if birth is None and label == "FECHAS":
            line_start = text.rfind("\n", 0, start) + 1
            if key.search(text[max(line_start, start - KEY_WINDOW) : start]):
                birth = _date(text[start:end])
        elif sex is None and label == "SEXO_SUJETO_ASISTENCIA":
            sex = read_sex(text[start:end])
    return StatedPerson(birth, sex)
