"""Check digits that python-stdnum does not compute, by their published rule.

* The Uruguayan cédula de identidad (CI): up to 7 digits (padded with zeros on the left) and
  a key digit: the digits times 2, 9, 8, 7, 6, 3, 4, summed; the key is what brings the sum
  to a multiple of 10 (`1.234.567-2`).
* Mexico's NSS (número de seguridad social of the IMSS): 11 digits, the last a Luhn digit
  over the first ten (`stdnum.luhn`).
"""

from collections.abc import Callable

from stdnum import luhn

from .common import compact

UY_CI_WEIGHTS = (2, 9, 8, 7, 6, 3, 4)


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


CHECKS: dict[str, Callable[[str], bool]] = {"uy_ci": uy_ci, "mx_nss": mx_nss}
