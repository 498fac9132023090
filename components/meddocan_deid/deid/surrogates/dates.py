"""Dates: shifted by one offset in days per scope (report, or patient), in their own format.

Handled shapes: `14/03/2001`, `4-6-2003`, `10-06-03`, `2003-06-10`, `05/2003`, `20/05`,
`23 de octubre de 1972`, `octubre de 2005`, `Oct. 2002`, `12-mar-2005`, `mar-05`, `1998`,
`2.003`, `octubre`. Zero padding, separators, month spelling (full or abbreviated) and
case are kept. An impossible day (31/02) is clamped to the month's last day before the
shift. Year-only dates move by the offset rounded to whole years (at least one); month-year
dates move the 15th of the month by the offset (the offset is at least 32 days, so the
month always changes). Anything else falls back to random digits of the same shape.
"""
import calendar
import datetime as dt
import re
from typing import List, Optional

from ..gazetteer import fold
from .common import Context

MIN_SHIFT, MAX_SHIFT = 32, 730
MONTHS = ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
          "septiembre", "octubre", "noviembre", "diciembre")
ABBR = {"ene": 1, "feb": 2, "mar": 3, "abr": 4, "may": 5, "jun": 6, "jul": 7, "ago": 8,
        "sep": 9, "sept": 9, "set": 9, "oct": 10, "nov": 11, "dic": 12}
FULL = {m: i for i, m in enumerate(MONTHS, start=1)}
FULL["setiembre"] = 9
TOKEN = re.compile(r"\d+(?:\.\d{3}(?!\d))?|[^\W\d_]+")  # `2.003` is a year; `08.2005` is not


def offset_for(ctx: Context, attempt: int = 0) -> int:
    """The scope's offset in days for `attempt` (0 is the scope's offset; later attempts,
    used when a shifted date would reproduce another date of the report, reach further:
    up to 2 years, then 10, then 50). `options.date_shift` (min, max) replaces these ranges."""
    rng = ctx.keyed.rng("date-offset", "", attempt)
    fixed_range = getattr(ctx.options, "date_shift", None)
    if fixed_range is not None:  # a policy's range holds for every attempt
        low, high = fixed_range
    else:
        low, high = (MIN_SHIFT, MAX_SHIFT) if attempt < 8 else (MAX_SHIFT, 3653) if attempt < 16 else (3653, 18263)
    days = rng.randint(low, high)
    return days if rng.random() < 0.5 else -days


def _month_index(word: str) -> Optional[int]:
    w = fold(word)
    return FULL.get(w) or ABBR.get(w)


def _month_word(template: str, month: int) -> str:
    full = MONTHS[month - 1]
    w = fold(template)
    if w in ABBR and w not in FULL:
        word = full[: len(template)] if len(template) <= 4 else full[:3]
        if month == 9 and w in ("sept", "set"):
            word = "sept"
    else:
        word = full
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word.capitalize()
    return word


def _year_value(token: str) -> int:
    digits = token.replace(".", "")
    year = int(digits)
    if len(digits) == 2:
        year += 2000 if year <= 30 else 1900
    return year


def _year_text(template: str, year: int) -> str:
    if "." in template:  # 2.003
        s = f"{year:04d}"
        return s[0] + "." + s[1:]
    if len(template) == 2:
        return f"{year % 100:02d}"
    return f"{year:04d}"


def _num_text(template: str, value: int, numeric: bool = True) -> str:
    """Zero-padded when the original was (`05`), or two digits wide in an all-numeric date."""
    if template.startswith("0") or (numeric and len(template) == 2):
        return f"{value:0{len(template)}d}"
    return str(value)


def _clamp(year: int, month: int, day: int) -> dt.date:
    year = min(max(year, 1), 9999)
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _shift(date: dt.date, days: int) -> Optional[dt.date]:
    try:
        return date + dt.timedelta(days=days)
    except OverflowError:
        return None


def shift_date(text: str, offset: int) -> Optional[str]:
    """`text` shifted by `offset` days in its own format; None when it is not a date we read."""
    try:
        return _shift_date(text, offset)
    except (ValueError, KeyError, OverflowError):
        return None  # an odd shape falls back to a same-shape surrogate; it never fails a report


def _shift_date(text: str, offset: int) -> Optional[str]:
    tokens = list(TOKEN.finditer(text))
    if not tokens:
        return None
    roles = {}
    month_i = next((i for i, m in enumerate(tokens) if not m.group()[0].isdigit() and _month_index(m.group())), None)
    nums = [i for i, m in enumerate(tokens) if m.group()[0].isdigit()]
    words = [i for i, m in enumerate(tokens) if not m.group()[0].isdigit()]
    # every word must be the month or a connector
    if any(i != month_i and fold(tokens[i].group()) not in ("de", "del", "el", "dia", "a") for i in words):
        return None
    if month_i is not None:
        before = [i for i in nums if i < month_i]
        after = [i for i in nums if i > month_i]
        if len(before) > 1 or len(after) > 1:
            return None
        if before:
            roles[before[0]] = "day"
        if after:
            roles[after[0]] = "year"
        roles[month_i] = "month_word"
    else:
        values = [tokens[i].group() for i in nums]
        if len(nums) == 3:
            a, b, c = values
            if len(a) == 4:
                roles.update({nums[0]: "year", nums[1]: "month", nums[2]: "day"})
            else:
                roles.update({nums[0]: "day", nums[1]: "month", nums[2]: "year"})
                if int(b) > 12 and int(a) <= 12:
                    roles.update({nums[0]: "month", nums[1]: "day"})
        elif len(nums) == 2:
            a, b = values
            if len(b.replace(".", "")) == 4 or int(b) > 12:
                roles.update({nums[0]: "month", nums[1]: "year"})
            else:
                roles.update({nums[0]: "day", nums[1]: "month"})
        elif len(nums) == 1:
            v = values[0].replace(".", "")
            if len(v) != 4:
                return None
            roles[nums[0]] = "year"
        else:
            return None
    got = {role: tokens[i].group() for i, role in roles.items()}
    try:
        month = _month_index(got["month_word"]) if "month_word" in got else (int(got["month"]) if "month" in got else None)
        year = _year_value(got["year"]) if "year" in got else None
        day = int(got["day"]) if "day" in got else None
    except ValueError:
        return None
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None and not 1 <= day <= 31:
        return None
    if year is not None and not 1 <= year <= 9999:
        return None
    new = {}
    if month is None and day is None:  # a year
        years = round(offset / 365.25) or (1 if offset > 0 else -1)
        new["year"] = year + years
    elif day is None:  # month (and year)
        shifted = _shift(_clamp(year or 2001, month, 15), offset)
        if shifted is None:
            return None
        new.update(month=shifted.month, year=shifted.year)
    else:
        shifted = _shift(_clamp(year or 2001, month, day), offset)
        if shifted is None:
            return None
        new.update(day=shifted.day, month=shifted.month, year=shifted.year)
    if "year" in new and not 1 <= new["year"] <= 9999:
        return None
    out: List[str] = []
    pos = 0
    for i, m in enumerate(tokens):
        out.append(text[pos:m.start()])
        pos = m.end()
        role = roles.get(i)
        tok = m.group()
        if role == "day":
            out.append(_num_text(tok, new["day"], numeric="month_word" not in roles.values()))
        elif role == "month":
            out.append(_num_text(tok, new["month"]))
        elif role == "month_word":
            out.append(_month_word(tok, new["month"]))
        elif role == "year":
            out.append(_year_text(tok, new["year"]))
        else:
            out.append(tok)
    out.append(text[pos:])
    return "".join(out)


def dates(text: str, label: str, ctx: Context) -> str:
    shifted = shift_date(text, ctx.date_offset)

    def make(rng, attempt):
        return shifted if attempt == 0 else None

    return ctx.draw("date", text, make, check=lambda c, o: c is not None and fold(c) != fold(o))
