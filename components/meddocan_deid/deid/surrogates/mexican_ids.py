"""Mexican identifiers that hold a person's birth date and sex: the CURP and the RFC.

A CURP (`BOXW310820HNERXN09`) is replaced as a whole, never partly: new name letters (a
consonant or vowel where the original has one, never one of the words the scheme forbids),
the surrogate birth date, the surrogate sex, a state and consonants drawn from the scheme's
lists, the homoclave's kind (a digit for a birth before 2000, a letter after) and a valid
check digit (python-stdnum `mx.curp`). A person's RFC (`GODE561231GR8`) gets the same name
letters and birth date, a homoclave and a valid check digit (`mx.rfc`); a company's RFC
(12 characters) new letters, its date moved by the report's offset and a valid check digit.

The birth date and the sex come from `birth_and_sex`: for the patient's identifier
(ID_SUJETO_ASISTENCIA) the report's stated birth date and sex (`stated_person`) where it
states them; otherwise the identifier's own date, moved by the report's date offset like
every date of the report, and its own sex letter. When the options do not keep the sex, the
sex is drawn once per report (keyed). Name letters are drawn once per original letters and
report, so the CURP and the RFC of one person keep agreeing."""

import datetime as dt
import random
import string
from typing import cast

from stdnum.mx import curp as std_curp
from stdnum.mx import rfc as std_rfc

from .common import Context
from .stated_person import shifted, stated_birth, surrogate_sex
from .tables import rows

DRAWS = 200


def parts(country: str, part: str) -> tuple[str, ...]:
    """The values of one part of `data/id_parts.tsv`."""
    for row_country, row_part, values, *_ in rows("id_parts.tsv"):
        if row_country == country and row_part == part:
            return tuple(values.split("|"))
    raise KeyError(f"data/id_parts.tsv: no part {part!r} for {country}")


def _own_date(yymmdd: str, century_hint: str) -> dt.date | None:
    """The date of `yymmdd`; the century from a CURP's homoclave (a digit: 1900s)."""
    year = int(yymmdd[:2]) + (1900 if century_hint.isdigit() else 2000)
    try:
        return dt.date(year, int(yymmdd[2:4]), int(yymmdd[4:6]))
    except ValueError:
        return None


def birth_and_sex(
    ctx: Context, label: str, own_date: dt.date | None, own_sex: str | None
) -> tuple[dt.date, str]:
    """The surrogate birth date and sex ("F" or "M") an identifier of `label` must agree with."""
    date = stated_birth(ctx, label)
    if date is None:
        if own_date is None:  # no date to move: one drawn once per report
            rng = ctx.keyed.rng("birth-date")
            own_date = dt.date(1940, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70))
        date = shifted(own_date, ctx.date_offset)
    return date, surrogate_sex(ctx, label, own_sex)


def name_letters(ctx: Context, rng: random.Random, original: str) -> str:
    """Four letters for the original's four (consonant or vowel kept, the forbidden words of
    the scheme left out), the same for the same original within a report."""
    # per report: original letters -> their surrogate letters (only this function writes it)
    drawn = cast(dict[str, str], ctx.state.setdefault("mx_name_letters", {}))
    if original in drawn:
        return drawn[original]
    vowels, consonants = parts("MX", "vowels"), parts("MX", "consonants")
    for _ in range(DRAWS):
        letters = "".join(
            rng.choice(vowels if c in vowels else consonants)
            if c.isalpha()
            else rng.choice(consonants)
            for c in original
        )
        if letters != original and std_curp.is_valid(letters + "000101HDFXXX09", False):
            drawn[original] = letters
            return letters
    raise RuntimeError("no CURP name letters")  # 200 draws of 4 letters never all forbidden


def curp(rng: random.Random, compact: str, label: str, ctx: Context) -> str | None:
    """A valid CURP for `compact` (18 characters), agreeing with the birth date and sex."""
    own_sex = {"H": "M", "M": "F"}.get(compact[10])
    date, sex = birth_and_sex(ctx, label, _own_date(compact[4:10], compact[16]), own_sex)
    letters = name_letters(ctx, rng, compact[:4])
    sex_letter = "X" if compact[10] == "X" and ctx.options.keep_sex else {"F": "M"}.get(sex, "H")
    consonants = parts("MX", "consonants")
    for _ in range(DRAWS):
        homoclave = (
            rng.choice(string.digits) if date.year < 2000 else rng.choice(string.ascii_uppercase)
        )
        body = (
            letters
            + date.strftime("%y%m%d")
            + sex_letter
            + rng.choice(parts("MX", "curp_state"))
            + "".join(rng.choice(consonants) for _ in range(3))
            + homoclave
        )
        value = body + std_curp.calc_check_digit(body)
        if std_curp.is_valid(value):
            return value
    return None


def rfc(rng: random.Random, compact: str, label: str, ctx: Context) -> str | None:
    """A valid RFC of the original's kind: a person's (13 or 10 characters, the CURP's
    letters and birth date) or a company's (12)."""
    person = len(compact) in (10, 13) and compact[:4].isalpha()
    if person:
        date, _sex = birth_and_sex(ctx, label, _own_date(compact[4:10], "0"), None)
        letters = name_letters(ctx, rng, compact[:4])
    else:
        own = _own_date(compact[3:9], "0")
        date = shifted(own or dt.date(2000, 1, 1), ctx.date_offset)
        letters = "".join(rng.choice(string.ascii_uppercase) for _ in range(3))
    first, second = parts("MX", "homoclave_first"), parts("MX", "homoclave_second")
    homoclave = compact[-3:]
    # each place of the homoclave keeps its class (letter or digit), the check too
    first = tuple(c for c in first if c.isdigit() == homoclave[0].isdigit()) or first
    second = tuple(c for c in second if c.isdigit() == homoclave[1].isdigit()) or second
    for _ in range(DRAWS):
        body = letters + date.strftime("%y%m%d")
        if len(compact) in (12, 13):
            body += rng.choice(first) + rng.choice(second)
            value = body + std_rfc.calc_check_digit(body)
            if (
                std_rfc.is_valid(value, validate_check_digits=True)
                and value[-1].isdigit() == homoclave[2].isdigit()
            ):
                return value
        elif std_rfc.is_valid(body):
            return body
    return None
