"""Identifiers whose digits are fields: a Mexican CURP (`BOXW310820HNERXN09`) and a person's
RFC (`GODE561231GR8`) hold the holder's birth date, and their surrogate agrees with the
report's shifted dates, so, as for a date (`common.shares_digit_run`), their digits are read
field by field (month, day, the rest) and the year may stay as it was. So are the kinds of
BIRTH_DATE_FIELDS, told by their draw kind (`national_ids.draw_kind`): a Nicaraguan cédula
(`001-150786-0012R`), a Salvadoran NIT (`0614-150387-102-0`), a Cuban carné (`85031245678`).
A Uruguayan RUT (`21-100342-001-7`) and an Ecuadorian RUC (`1714307103001`) hold the
constant `001` that every such number holds: it is left out as a phone's country code is.
Pure functions over a string; no import of the other surrogate modules."""

import re

from stdnum.ec import ruc as ec_ruc
from stdnum.uy import rut as uy_rut

CURP = re.compile(r"([A-Z]{4})(\d{2})(\d{2})(\d{2})([HMX][A-Z]{5})([A-Z0-9])(\d)")
RFC_PERSON = re.compile(r"([A-ZÑ&]{4})(\d{2})(\d{2})(\d{2})([A-Z0-9]{3})?")
# draw kind -> its compact length and the (start, end) of each digit field, the year left out
BIRTH_DATE_FIELDS: dict[str, tuple[int, tuple[tuple[int, int], ...]]] = {
    # municipality, day, month, serial (the check letter last)
    "id-cedula_ni": (14, ((0, 3), (3, 5), (5, 7), (9, 13))),
    # municipality, day, month, serial and check digit
    "id-nit_sv": (14, ((0, 4), (4, 6), (6, 8), (10, 14))),
    # month, day, century digit, serial, sex digit and last digit
    "id-ni_cu": (11, ((2, 4), (4, 6), (6, 11))),
}


def _compact(value: str) -> str:
    return re.sub(r"[\s.\-/]", "", value).upper()


def digit_fields(value: str, kind: str = "") -> list[str] | None:
    """The digit runs of a CURP or a person's RFC, field by field and without the year
    (`BOXW310820HNERXN09` -> ["08", "20", "0", "9"]), of a value of a draw `kind` of
    BIRTH_DATE_FIELDS likewise (`001-150786-0012R` -> ["001", "15", "07", "0012"]), of a
    Uruguayan RUT or an Ecuadorian RUC without their `001`; None for any other value."""
    compact = _compact(value)
    if kind in BIRTH_DATE_FIELDS:
        length, places = BIRTH_DATE_FIELDS[kind]
        fields = [compact[start:end] for start, end in places]
        if len(compact) == length and all(f.isdigit() for f in fields):
            return fields
    m = CURP.fullmatch(compact)
    if m is not None:
        return [m.group(3), m.group(4), *re.findall(r"\d+", m.group(6)), m.group(7)]
    m = RFC_PERSON.fullmatch(compact)
    if m is not None:
        return [m.group(3), m.group(4), *re.findall(r"\d+", m.group(5) or "")]
    if len(compact) == 12 and compact[8:11] == "001" and uy_rut.is_valid(compact):
        return [compact[:2], compact[2:8], compact[11:]]
    if len(compact) == 13 and compact.endswith("001") and ec_ruc.is_valid(compact):
        return [compact[:10]]
    return None
