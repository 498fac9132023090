"""What a report states about its patient that an identifier holds too: the birth date
(a FECHAS span after a birth key: `Fecha de nacimiento:`, `F. nac.`, `nacida el`) and the
sex (a SEXO_SUJETO_ASISTENCIA span: `mujer`, `masculino`, `F`). An identifier surrogate that
holds its holder's birth date agrees with them (`mexican_ids`: a CURP, an RFC;
`central_american_ids`; a Cuban carné): `stated_birth` and `surrogate_sex` say what the
patient's identifier (ID_SUJETO_ASISTENCIA) holds. Read from the report's text and its PHI
spans; the keys and the sex words are word lists (`pipeline/data/es/birth_date_keys.txt`,
`sex_words.json`)."""

import datetime as dt
import re
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from ...lexicon import lookup_key, tagged_words, words
from .common import Context
from .dates import read_date

PATIENT_LABEL = "ID_SUJETO_ASISTENCIA"  # the label whose identifier is the patient's
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


def _stated(ctx: Context) -> StatedPerson:
    found = ctx.state.get("stated_person")  # set by the surrogate operator per report
    return found if isinstance(found, StatedPerson) else StatedPerson(None, None)


def shifted(date: dt.date, days: int) -> dt.date:
    """`date` moved by `days` (the report's date offset); as it was past the calendar's end."""
    try:
        return date + dt.timedelta(days=days)
    except OverflowError:
        return date


def stated_birth(ctx: Context, label: str) -> dt.date | None:
    """The surrogate birth date an identifier of `label` holds: for the patient's, the stated
    birth date moved by the report's date offset (as the date itself is); None for another
    label (a relative's, a professional's) or a report that states none."""
    birth = _stated(ctx).birth
    if label != PATIENT_LABEL or birth is None:
        return None
    return shifted(birth, ctx.date_offset)


def surrogate_sex(ctx: Context, label: str, own_sex: str | None) -> str:
    """The sex ("F" or "M") an identifier of `label` holds: with the sex kept, the stated one
    for the patient's, else its own; otherwise (or when it has none) drawn once per report."""
    stated = _stated(ctx).sex
    if ctx.options.keep_sex and label == PATIENT_LABEL and stated is not None:
        return stated
    if ctx.options.keep_sex and own_sex is not None:
        return own_sex
    return ctx.keyed.rng("sex").choice("FM")
