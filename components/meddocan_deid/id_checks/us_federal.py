"""US federal numbers of a patient: the SSN by its ranges, the Medicare MBI by its classes.

* SSN: `AAA-GG-SSSS`: the area 001 to 899 but 666, the group 01 to 99, the serial 0001 to
  9999 (the Social Security Administration never issues the others), and not one of the
  numbers published on sample cards (078-05-1120, 219-09-9999).
* MBI (Medicare Beneficiary Identifier, CMS): 11 characters, `C A AN N A AN N A A N N`: C a
  digit 1-9, N a digit, A a letter but S, L, O, I, B and Z, AN either; written with or
  without dashes after the 4th and 7th (`1EG4-TE5-MK73`).
"""

import re
from collections.abc import Callable

from .common import compact

SAMPLE_SSNS = frozenset({"078051120", "219099999"})
MBI_LETTERS = "ACDEFGHJKMNPQRTUVWXY"  # A-Z without S, L, O, I, B, Z
_A = f"[{MBI_LETTERS}]"
_AN = f"[{MBI_LETTERS}0-9]"
MBI = re.compile(f"[1-9]{_A}{_AN}[0-9]{_A}{_AN}[0-9]{_A}{_A}[0-9][0-9]")
_SSN_WRITTEN = re.compile(r"\d{3}([- ]?)\d{2}\1\d{4}")


def ssn(value: str) -> bool:
    """A US SSN in its issued ranges (dashes or spaces between the parts, or none)."""
    value = value.strip()
    if _SSN_WRITTEN.fullmatch(value) is None:
        return False
    number = re.sub(r"\D", "", value)
    area, group, serial = int(number[:3]), int(number[3:5]), int(number[5:])
    return 0 < area < 900 and area != 666 and group > 0 and serial > 0 and number not in SAMPLE_SSNS


def mbi(value: str) -> bool:
    """A Medicare MBI: 11 characters of the classes above."""
    return MBI.fullmatch(compact(value)) is not None


CHECKS: dict[str, Callable[[str], bool]] = {"us_ssn": ssn, "us_mbi": mbi}
