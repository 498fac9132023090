"""Identity documents without a check digit: checked by their shape only, so they count
only after a key that names them (`C.C.`, `cédula`, `C.I.`, `DPI`...).

* Colombia's cédula de ciudadanía (and tarjeta de identidad, cédula de extranjería): 6 to 10
  digits, dots grouping thousands where there are dots (`1.023.456.789`, `79.123.456`).
* Venezuela's cédula: V (Venezuelan) or E (foreigner), then 6 to 8 digits (`V-12.345.678`).
* The cédulas of the other countries after their key (Bolivia, Paraguay, Panamá, Honduras,
  Nicaragua, El Salvador, Guatemala): digits in groups, 5 to 14 digits, a letter allowed at
  the start (Panamá `PE-`, `E-`, `N-`) or the end (Nicaragua), never one repeated digit.
* Honduras's identity card (DNI, tarjeta de identidad): the department (01 to 18) and
  municipality (01 to 28) of registration, the year of birth, a serial of 5 digits
  (`0801-1985-01234`).
* Panamá's cédula: the province (1 to 13), or a letter prefix (`E` a foreigner, `N` a
  naturalised citizen, `PE` a Panamanian born abroad, `AV` and `PI` after the province), the
  volume (up to 4 digits) and the entry (up to 6), hyphenated (`8-123-4567`).
"""

import re
from collections.abc import Callable

from .common import grouped_by_thousands

_CO = re.compile(r"[1-9]\d{0,2}(?:\.\d{3}){1,3}|[1-9]\d{5,9}")
_VE = re.compile(r"([VE])[\s.\-]?(\d{1,2}\.?\d{3}\.?\d{3}|\d{6,8})", re.IGNORECASE)
_HN = re.compile(r"(0[1-9]|1[0-8])(0[1-9]|[12]\d)[\s\-]?(19\d\d|20\d\d)[\s\-]?\d{5}")
_PA = re.compile(r"(?:(?:[1-9]|1[0-3])(?:AV|PI)?|PE|E|N)-\d{1,4}-\d{1,6}", re.IGNORECASE)
_OTHER = re.compile(r"(?:[A-Z]{1,2}-)?\d[\d\s.\-/]{3,18}\d[A-Z]?", re.IGNORECASE)


def co_cedula(value: str) -> bool:
    """A Colombian cédula: 6 to 10 digits, no leading zero, dots by thousands."""
    value = value.strip()
    digits = re.sub(r"\D", "", value)
    return (
        _CO.fullmatch(value) is not None and 6 <= len(digits) <= 10 and grouped_by_thousands(value)
    )


def ve_cedula(value: str) -> bool:
    """A Venezuelan cédula: V or E, then 6 to 8 digits (dots by thousands where written)."""
    m = _VE.fullmatch(value.strip())
    if m is None:
        return False
    number = m.group(2)
    return 6 <= len(number.replace(".", "")) <= 8 and grouped_by_thousands(number)


def other_cedula(value: str) -> bool:
    """A cédula after its key: 5 to 14 digits in groups, not one repeated digit."""
    value = value.strip()
    digits = re.sub(r"\D", "", value)
    return _OTHER.fullmatch(value) is not None and 5 <= len(digits) <= 14 and len(set(digits)) > 1


def hn_identity(value: str) -> bool:
    """A Honduran identity card number: department, municipality, birth year, serial."""
    return _HN.fullmatch(value.strip()) is not None


def pa_cedula(value: str) -> bool:
    """A Panamanian cédula: province or prefix, volume, entry."""
    return _PA.fullmatch(value.strip()) is not None


CHECKS: dict[str, Callable[[str], bool]] = {
    "co_cedula": co_cedula,
    "ve_cedula": ve_cedula,
    "other_cedula": other_cedula,
    "hn_identity": hn_identity,
    "pa_cedula": pa_cedula,
}
