"""Makers of the national identifiers of Guatemala, El Salvador, Honduras, Nicaragua and
Panamá (read by `national_ids`): each draws a new compact value whose parts are valid by
their scheme and whose check (`meddocan_deid.id_checks`) passes.

* Guatemala's CUI (the DPI's number): 8 digits, their check digit (a draw whose remainder
  is 10 is drawn again), a department (01 to 22) and one of its municipalities.
* El Salvador's NIT: a municipality (department 01 to 14, municipality 01 to 20; a
  foreigner's leading `9` kept), the birth date (DDMMYY), a serial, its check digit
  (python-stdnum's).
* Honduras's identity card: a department (01 to 18), a municipality (01 to 28), the year of
  birth, a serial of 5 digits.
* Nicaragua's cédula: a municipality of birth (the original's first digit, never `000`),
  the birth date (DDMMYY), a serial of 4 digits, the check letter.
* Panamá's cédula: the province and the letters (`PE`, `E`, `N`, `AV`, `PI`) kept, as a
  CUIT's type is (a place of registration, shared by a province's people), the volume and
  entry drawn anew.

The birth date (or year) the patient's identifier (ID_SUJETO_ASISTENCIA) holds is the
report's stated birth date moved by its date offset, as a CURP's is
(`stated_person.stated_birth`); another person's identifier, or one in a report that states no
birth date, holds a drawn one (1930 to 2009; a Honduran year within ten of the original's).

A maker is `fn(rng, original, label, ctx) -> str | None` over the compact value (no
separators, capitals), of the original's length.
"""

import datetime as dt
import random
import string

from stdnum.sv import nit as sv_nit

from ...id_checks import CHECKS
from ...id_checks.weighted_keys import GT_MUNICIPALITIES, ni_check_letter
from .common import Context
from .stated_person import stated_birth

DRAWS = 200
SV_DEPARTMENTS = 14
SV_MUNICIPALITIES = 20  # a municipality number every department has
HN_DEPARTMENTS = 18
HN_MUNICIPALITIES = 28
HN_YEARS = 10  # a surrogate's year of birth lies this close to the original's
_FIRST_BIRTH = dt.date(1930, 1, 1)
_BIRTH_DAYS = 80 * 365  # birth dates drawn from 1930 to 2009


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def _birth_date(rng: random.Random, birth: dt.date | None) -> str:
    """`birth` (the stated one), else a drawn birth date, as DDMMYY."""
    if birth is None:
        birth = _FIRST_BIRTH + dt.timedelta(days=rng.randrange(_BIRTH_DAYS))
    return birth.strftime("%d%m%y")


def gt_cui(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    for _ in range(DRAWS):
        body = rng.choice("123456789") + _digits(rng, 7)
        check = sum(int(d) * w for d, w in zip(body, range(2, 10))) % 11
        if check == 10:
            continue
        department = rng.randint(1, len(GT_MUNICIPALITIES))
        municipality = rng.randint(1, GT_MUNICIPALITIES[department - 1])
        return f"{body}{check}{department:02d}{municipality:02d}"
    return None


def sv_tax_number(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    birth = stated_birth(ctx, label)
    for _ in range(DRAWS):
        if original[0] == "9":
            place = "9" + _digits(rng, 3)
        else:
            place = f"{rng.randint(1, SV_DEPARTMENTS):02d}{rng.randint(1, SV_MUNICIPALITIES):02d}"
        body = place + _birth_date(rng, birth) + _digits(rng, 3)
        value = body + sv_nit.calc_check_digit(body)
        if CHECKS["sv_nit"](value):
            return value
    return None


def hn_identity(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    year = int(original[4:8])
    latest = dt.date.today().year
    birth = stated_birth(ctx, label)
    if birth is not None and not 1900 <= birth.year <= 2099:
        birth = None  # the card writes a year of 19xx or 20xx
    for _ in range(DRAWS):
        if birth is not None:
            new_year = birth.year
        else:
            new_year = rng.randint(year - HN_YEARS, min(year + HN_YEARS, latest))
        value = (
            f"{rng.randint(1, HN_DEPARTMENTS):02d}{rng.randint(1, HN_MUNICIPALITIES):02d}"
            f"{new_year}{_digits(rng, 5)}"
        )
        if CHECKS["hn_identity"](value):
            return value
    return None


def ni_cedula(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    birth = stated_birth(ctx, label)
    for _ in range(DRAWS):
        municipality = original[0] + _digits(rng, 2)
        if municipality == "000":
            continue
        digits = municipality + _birth_date(rng, birth) + _digits(rng, 4)
        value = digits + ni_check_letter(digits)
        if CHECKS["ni_cedula"](value):
            return value
    return None


def pa_cedula(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    """The letters and the province kept (its first digit; `10` to `13` both digits), the
    other digits drawn anew; the caller checks the value as written."""
    kept = 2 if original[:1] == "1" and original[1:2].isdigit() else 1
    out = []
    for i, c in enumerate(original):
        if c.isalpha() or (i < kept and c.isdigit()):
            out.append(c)
        else:
            out.append(rng.choice(string.digits))
    return "".join(out)
