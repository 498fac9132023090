"""Identifiers whose digits are fields: a Mexican CURP (`BOXW310820HNERXN09`) and a person's
RFC (`GODE561231GR8`) hold the holder's birth date, and their surrogate agrees with the
report's shifted dates, so, as for a date (`common.shares_digit_run`), their digits are read
field by field (month, day, the rest) and the year may stay as it was. A Uruguayan RUT
(`21-100342-001-7`) and an Ecuadorian RUC (`1714307103001`) hold the constant `001` that
every such number holds: it is left out as a phone's country code is. Pure functions over
a string; no import of the other surrogate modules."""

import re

from stdnum.ec import ruc as ec_ruc
from stdnum.uy import rut as uy_rut

CURP = re.compile(r"([A-Z]{4})(\d{2})(\d{2})(\d{2})([HMX][A-Z]{5})([A-Z0-9])(\d)")
RFC_PERSON = re.compile(r"([A-ZÑ&]{4})(\d{2})(\d{2})(\d{2})([A-Z0-9]{3})?")


def _compact(value: str) -> str:
    return re.sub(r"[\s.\-/]", "", value).upper()


def digit_fields(value: str) -> list[str] | None:
    """The digit runs of a CURP or a person's RFC, field by field and without the year
    (`BOXW310820HNERXN09` -> ["08", "20", "0", "9"]), of a Uruguayan RUT or an Ecuadorian RUC
    without their `001`; None for any other value."""
    compact = _compact(value)
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
