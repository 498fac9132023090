"""Check digits that python-stdnum does not compute, by their published rule.

* The Uruguayan cédula de identidad (CI): up to 7 digits (padded with zeros on the left) and
  a key digit: the digits times 2, 9, 8, 7, 6, 3, 4, summed; the key is what brings the sum
  to a multiple of 10 (`1.234.567-2`).
* Mexico's NSS (número de seguridad social of the IMSS): 11 digits, the last a Luhn digit
  over the first ten (`stdnum.luhn`).
* El Salvador's DUI (documento único de identidad): 8 digits and a check digit: the digits
  times 9, 8, ..., 2, summed; the check brings the sum to a multiple of 10 (`00000000-0`).
* Guatemala's DPI (its CUI, código único de identificación): 8 digits, a check digit (the
  digits times 2, 3, ..., 9, summed, modulo 11; a remainder of 10 is no CUI), then the
  department (01 to 22) and the municipality of registration (01 to the department's count).
* Nicaragua's cédula de identidad: the municipality of birth (3 digits), the birth date
  (DDMMYY), a serial (4 digits) and a check letter: the 13 digits as one number modulo 23,
  read in `ABCDEFGHJKLMNPQRSTUVWXY` (`001-010190-0000A`).
"""

import datetime
from collections.abc import Callable

from stdnum import luhn

from .common import compact

UY_CI_WEIGHTS = (2, 9, 8, 7, 6, 3, 4)
# the municipalities of each Guatemalan department, 01 to 22, as RENAP numbers them (with the
# newest: Sipacate in Escuintla, Petatán in Huehuetenango)
GT_MUNICIPALITIES = (
    17,
    8,
    16,
    16,
    14,
    14,
    19,
    8,
    24,
    21,
    9,
    30,
    33,
    21,
    8,
    17,
    14,
    5,
    11,
    11,
    7,
    17,
)
NI_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXY"


def uy_ci_key(body: str) -> str:
    """The key digit of the digits of a Uruguayan CI (without its key)."""
    digits = body.rjust(7, "0")
    total = sum(int(d) * w for d, w in zip(digits, UY_CI_WEIGHTS))
    return str(-total % 10)


def uy_ci(value: str) -> bool:
    """A Uruguayan CI: 6 or 7 digits and its key digit."""
    number = compact(value)
    if not number.isdigit() or not 7 <= len(number) <= 8 or number[0] == "0":
        return False
    return uy_ci_key(number[:-1]) == number[-1]


def mx_nss(value: str) -> bool:
    """A Mexican NSS: 11 digits whose last is the Luhn digit of the first ten."""
    number = compact(value)
    return number.isdigit() and len(number) == 11 and luhn.is_valid(number)


def sv_dui(value: str) -> bool:
    """A Salvadoran DUI: 8 digits and its check digit (`12345678-9`, the hyphen optional)."""
    number = compact(value)
    if not number.isdigit() or len(number) != 9:
        return False
    total = sum(int(d) * w for d, w in zip(number[:8], range(9, 1, -1)))
    return str(-total % 10) == number[8]


def gt_cui(value: str) -> bool:
    """A Guatemalan CUI (the DPI's number): 13 digits, its check digit, department and
    municipality (`1234 56789 0101`, blanks optional)."""
    number = compact(value)
    if not number.isdigit() or len(number) != 13:
        return False
    department, municipality = int(number[9:11]), int(number[11:13])
    if not 1 <= department <= len(GT_MUNICIPALITIES):
        return False
    if not 1 <= municipality <= GT_MUNICIPALITIES[department - 1]:
        return False
    total = sum(int(d) * w for d, w in zip(number[:8], range(2, 10)))
    return total % 11 == int(number[8])


def ni_check_letter(digits: str) -> str:
    """The check letter of the 13 digits of a Nicaraguan cédula."""
    return NI_LETTERS[int(digits) % 23]


def ni_birth_date(value: str) -> bool:
    """A Nicaraguan cédula's shape: 13 digits and a letter whose digits 4 to 9 are a date."""
    number = compact(value)
    if len(number) != 14 or not number[:13].isdigit() or not number[13].isalpha():
        return False
    day, month, year = int(number[3:5]), int(number[5:7]), int(number[7:9])
    try:
        datetime.date(2000 + year, month, day)  # no century: 20YY's calendar (only 1900 differs)
    except ValueError:
        return False
    return True


def ni_cedula(value: str) -> bool:
    """A Nicaraguan cédula: its shape, a birth date and the check letter
    (`001-010190-0000A`)."""
    number = compact(value)
    return ni_birth_date(number) and ni_check_letter(number[:13]) == number[13]


CHECKS: dict[str, Callable[[str], bool]] = {
    "uy_ci": uy_ci,
    "mx_nss": mx_nss,
    "sv_dui": sv_dui,
    "gt_cui": gt_cui,
    "ni_cedula_date": ni_birth_date,
    "ni_cedula": ni_cedula,
}
