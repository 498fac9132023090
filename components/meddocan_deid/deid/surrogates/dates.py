"""Dates: shifted by one offset in days per scope (report, or patient), in their own format
and language.

Read and written: numeric dates (`14/03/2001`, `4-6-2003`, `10-06-03`, `14.02.2021`,
`2003-06-10`, `05/2003`, `20/05`, `1998`, `2.003`, `11-III-2024`), and dates with month
names, weekdays or seasons in Spanish, Catalan, Galician or Basque (`23 de octubre de 1972`,
`14 d'abril de 2021`, `14 de xaneiro do 2021`, `2021eko otsailaren 14a`, `Oct. 2002`,
`12-mar-2005`, `jueves 2 de agosto`, `Otoño del 2017`, `octubre`, `jueves`, `verano`); the
word lists are `data/calendar.tsv`. Zero padding, separators, the language, full or
abbreviated month names, Roman month numbers, case, Catalan elision (`de febrer` /
`d'abril`) and Basque endings (`2021eko`, `2020ko`, `5ean`) follow the original. An
impossible day (31/02) is clamped to the month's last day before the shift. Year-only
dates move by the offset rounded to whole years (at least one); month-year dates move the
15th of the month by the offset (the offset is at least 32 days, so the month always
changes); a season of a year moves its middle month, a season alone by the offset in
seasons (at least one); a weekday is the new date's, a weekday alone moves by the offset.
A value that is not a date read here (`la semana pasada`, a holiday, `lunes 10` without its
month, a word labelled by mistake) gets no surrogate: the generator returns None and the
operator writes the tag.
"""

import calendar
import datetime as dt
import re
from functools import lru_cache
from typing import NamedTuple

from ...lexicon import lookup_key
from .common import Context
from .tables import rows

MIN_SHIFT, MAX_SHIFT = 32, 730
LANGS = (
    "es",
    "ca",
    "gl",
    "eu",
)  # the order an ambiguous date is read in (`abril de 2021`: Spanish)
NUMERIC = "num"  # the language of a date written in digits only
# `2.003` is a year, `08.2005` is not; `d'` (Catalan) is a word of its own
TOKEN = re.compile(r"\d+(?:\.\d{3}(?!\d))?|[^\W\d_]+['’](?=[^\W\d_])|[^\W\d_]+")
ORDINALS = ("º", "ª")  # `1º de mayo`
# Basque case endings, written on numbers (`14a`, `5ean`, `2021eko`) and on month and weekday
# names (`otsailaren`, `martxoan`); the form after a vowel first, then after a consonant
EU_ENDINGS = {
    "a": ("a", "a"),
    "aren": ("aren", "aren"),
    "an": ("an", "ean"),
    "ko": ("ko", "eko"),
    "tik": ("tik", "etik"),
    "ra": ("ra", "era"),
    "rako": ("rako", "erako"),
    "n": ("n", "ean"),
}
EU_READ = {
    "a": "a",
    "aren": "aren",
    "an": "an",
    "ean": "an",
    "n": "an",
    "ko": "ko",
    "eko": "ko",
    "tik": "tik",
    "etik": "tik",
    "ra": "ra",
    "era": "ra",
    "rako": "rako",
    "erako": "rako",
}
EU_NUMBER_ENDINGS = ("a", "an", "ean", "n", "ko", "eko")
ROMAN_MONTHS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")
SEASON_MIDDLE = {1: 5, 2: 8, 3: 11, 4: 2}  # spring, summer, autumn, winter: their middle month


class Word(NamedTuple):
    kind: str  # month, weekday or season
    lang: str
    number: int  # of the month, weekday or season, from 1
    abbreviated: bool
    ending: str = ""  # Basque case ending, as read (`aren`, `an`, ...)


class DateReading(NamedTuple):
    """What `read_date` finds in a date: its fields (None where the date has none), the
    languages it can be read in ({"num"} for digits only) and the one it is read in."""

    day: int | None
    month: int | None
    year: int | None
    weekday: int | None  # 1 Monday ... 7 Sunday
    season: int | None  # 1 spring ... 4 winter
    langs: frozenset[str]
    lang: str


@lru_cache(maxsize=1)
def _calendar():
    forms: dict[str, list[Word]] = {}
    names: dict[tuple[str, str, int], tuple[str, tuple[str, ...]]] = {}
    connectors: dict[str, set] = {}
    for lang, kind, index, spelled in rows("calendar.tsv"):
        parts = spelled.split("|")
        if kind == "connector":
            for p in parts:
                connectors.setdefault(p.casefold(), set()).add(lang)
            continue
        i = int(index)
        abbreviations = tuple(p for p in parts[1:] if len(p) <= 4)  # `setiembre` is a full variant
        names[(kind, lang, i)] = (parts[0], abbreviations)
        for j, p in enumerate(parts):
            abbreviated = j > 0 and len(p) <= 4
            ending = "a" if lang == "eu" and not abbreviated else ""
            forms.setdefault(lookup_key(p), []).append(Word(kind, lang, i, abbreviated, ending))
    # Basque names with a case ending other than the bare `-a`: stem (name less its `a`) + ending
    stems = {
        lookup_key(full)[:-1]: (kind, i)
        for (kind, lang, i), (full, _a) in names.items()
        if lang == "eu" and kind in ("month", "weekday")
    }
    return forms, names, {k: frozenset(v) for k, v in connectors.items()}, stems


def _words(token: str) -> list[Word]:
    forms, _names, _connectors, stems = _calendar()
    f = lookup_key(token)
    if f in forms:
        return forms[f]
    for ending in sorted(EU_READ, key=len, reverse=True):
        stem = f[: -len(ending)]
        if f.endswith(ending) and stem in stems:
            kind, i = stems[stem]
            return [Word(kind, "eu", i, False, ending)]
    return []


class _Item:
    """One token of a date: a number (with a glued ending), a calendar word or a connector."""

    __slots__ = ("start", "end", "text", "kind", "words", "langs", "ending", "role")

    def __init__(self, m, kind, words=(), langs=frozenset()):
        self.start, self.end, self.text = m.start(), m.end(), m.group()
        self.kind, self.words, self.langs = kind, list(words), langs
        self.ending = ""  # a number's glued ending (`14a`, `2021eko`, `1º`); `text` is the number
        self.role = ""


def _items(text: str) -> list[_Item] | None:
    _forms, _names, connectors, _stems = _calendar()
    items: list[_Item] = []
    for m in TOKEN.finditer(text):
        tok = m.group()
        if tok[0].isdigit():
            items.append(_Item(m, "num"))
            continue
        if tok in ROMAN_MONTHS:  # `11-III-2024` (capitals only: `i` is a Catalan word)
            items.append(_Item(m, "roman"))
            continue
        prev = items[-1] if items else None
        if prev is not None and prev.kind == "num" and prev.end == m.start() and not prev.ending:
            if tok in ORDINALS or lookup_key(tok) in EU_NUMBER_ENDINGS:  # glued to its number
                prev.ending, prev.end = tok, m.end()
                prev.langs = frozenset({"eu"}) if tok not in ORDINALS else frozenset()
                continue
            return None
        words = _words(tok)
        if words:
            kinds = {w.kind for w in words}
            kind = "month" if "month" in kinds else sorted(kinds)[0]
            items.append(
                _Item(
                    m,
                    kind,
                    [w for w in words if w.kind == kind],
                    frozenset(w.lang for w in words if w.kind == kind),
                )
            )
        elif tok.casefold().replace("’", "'") in connectors:
            items.append(_Item(m, "connector", langs=connectors[tok.casefold().replace("’", "'")]))
        else:
            return None  # a word that is no part of a date: not a date we read
    return items or None


def _languages(items: list[_Item]) -> tuple[frozenset[str], str]:
    named = [it for it in items if it.kind in ("month", "weekday", "season")]
    if not named:
        return frozenset({NUMERIC}), NUMERIC
    sets = [it.langs for it in items if it.langs]
    langs = frozenset.intersection(*sets) if sets else frozenset()
    if not langs:  # words of two languages: the calendar words decide
        langs = frozenset.intersection(*[it.langs for it in named]) or named[0].langs
    lang = next(code for code in LANGS if code in langs)
    return langs, lang


def _assign_roles(items: list[_Item]) -> bool:
    """Set each item's role (day, month, month_word, year, weekday, season); False when the
    tokens do not make a date."""
    months = [it for it in items if it.kind in ("month", "roman")]
    weekdays = [it for it in items if it.kind == "weekday"]
    seasons = [it for it in items if it.kind == "season"]
    nums = [it for it in items if it.kind == "num"]
    if len(months) > 1 or len(weekdays) > 1 or len(seasons) > 1 or (months and seasons):
        return False
    for it in weekdays + seasons:
        it.role = it.kind
    if months:
        return _roles_around_month(months[0], nums)
    if any(it.ending for it in nums):
        return False
    values = [it.text for it in nums]
    if seasons or weekdays:
        if not nums:
            return True  # a season or a weekday alone
        if not seasons or len(nums) != 1 or len(values[0].replace(".", "")) not in (2, 4):
            return False  # `lunes 10`: a day without its month
        nums[0].role = "year"
        return True
    roles = _numeric_roles(values)
    if roles is None:
        return False
    for it, role in zip(nums, roles):
        it.role = role
    return True


def _roles_around_month(month: _Item, nums: list[_Item]) -> bool:
    """The roles of a month written as a word or a Roman numeral and of the numbers around it
    (at most one each side): a day or a year by its ending, else by its place and length;
    False when two numbers get one role."""
    month.role = "month_word" if month.kind == "month" else "month_roman"
    before = [it for it in nums if it.start < month.start]
    after = [it for it in nums if it.start > month.start]
    if len(before) > 1 or len(after) > 1:
        return False
    for it in before + after:
        ending = EU_READ.get(lookup_key(it.ending), "") if it.langs else ""
        if ending == "ko":
            it.role = "year"
        elif it.ending and (ending or it.ending in ORDINALS):
            it.role = "day"
    for it in before:
        if not it.role:
            it.role = "year" if len(it.text.replace(".", "")) == 4 else "day"
    for it in after:
        if not it.role:
            it.role = (
                "day" if any(b.role == "year" for b in before) and len(it.text) <= 2 else "year"
            )
    assigned = [it.role for it in before + after]
    return len(assigned) == len(set(assigned))


def _numeric_roles(values: list[str]) -> tuple[str, ...] | None:
    """The roles of the numbers of an all-numeric date, in order (year first when it leads,
    else day-month-year unless only month-day-year can be); None: no date."""
    if len(values) == 3:
        a, b, _c = values
        if len(a) == 4:
            return ("year", "month", "day")
        if int(b) > 12 and int(a) <= 12:
            return ("month", "day", "year")
        return ("day", "month", "year")
    if len(values) == 2:
        a, b = values
        return (
            ("month", "year") if len(b.replace(".", "")) == 4 or int(b) > 12 else ("day", "month")
        )
    if len(values) == 1 and len(values[0].replace(".", "")) == 4:
        return ("year",)
    return None


def _year_value(token: str) -> int:
    digits = token.replace(".", "")
    year = int(digits)
    if len(digits) == 2:
        year += 2000 if year <= 30 else 1900
    return year


def _analyse(text: str):
    """(items with roles, day, month, year, weekday, langs, lang) or None."""
    items = _items(text)
    if items is None or not _assign_roles(items):
        return None
    got = {it.role: it for it in items if it.role}
    try:
        day = int(got["day"].text) if "day" in got else None
        if "month_word" in got:
            month = got["month_word"].words[0].number
        elif "month_roman" in got:
            month = ROMAN_MONTHS.index(got["month_roman"].text) + 1
        else:
            month = int(got["month"].text) if "month" in got else None
        year = _year_value(got["year"].text) if "year" in got else None
    except ValueError:
        return None
    weekday = got["weekday"].words[0].number if "weekday" in got else None
    season = got["season"].words[0].number if "season" in got else None
    if month is None and day is None and year is None and weekday is None and season is None:
        return None
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None and (not 1 <= day <= 31 or month is None):
        return None
    if year is not None and not 1 <= year <= 9999:
        return None
    langs, lang = _languages(items)
    return items, day, month, year, weekday, season, langs, lang


def read_date(text: str) -> DateReading | None:
    """The fields and the language of `text` as a date, or None when it is not one we read."""
    try:
        found = _analyse(text)
    except (ValueError, KeyError, OverflowError):
        return None
    if found is None:
        return None
    _items_, day, month, year, weekday, season, langs, lang = found
    return DateReading(day, month, year, weekday, season, langs, lang)


def offset_for(ctx: Context, attempt: int = 0) -> int:
    """The scope's offset in days for `attempt` (0 is the scope's offset; later attempts,
    used when a shifted date would reproduce another date of the report, reach further:
    up to 2 years, then 10, then 50). `options.date_shift` (min, max) replaces these ranges."""
    rng = ctx.keyed.rng("date-offset", "", attempt)
    fixed_range = getattr(ctx.options, "date_shift", None)
    if fixed_range is not None:  # a policy's range holds for every attempt
        low, high = fixed_range
    else:
        low, high = (
            (MIN_SHIFT, MAX_SHIFT)
            if attempt < 8
            else (MAX_SHIFT, 3653)
            if attempt < 16
            else (3653, 18263)
        )
    days = rng.randint(low, high)
    return days if rng.random() < 0.5 else -days


# -- writing ------------------------------------------------------------------------------
def _case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word.lower()


def _eu_ending(read: str, after_consonant: bool) -> str:
    vowel_form, consonant_form = EU_ENDINGS[EU_READ.get(read, read)]
    return consonant_form if after_consonant else vowel_form


def _eu_case(template: str, ending: str) -> str:
    return ending.upper() if template.isupper() else ending


def _eu_number_ending(value: int, read: str) -> str:
    """The Basque ending of a number as its last spoken word ends (`1ean`, `2an`, `11n`,
    `2021eko`, `2020ko`): bat, bost, hamar, hamabost and ehun end in a consonant;
    hamaika and mila in `a` (inessive `-n`)."""
    base = EU_READ.get(lookup_key(read), lookup_key(read))
    last = value % 100
    if last == 0:
        ending_sound = "a" if value % 1000 == 0 else "consonant"  # mila / ehun
    else:
        r = last % 20
        ending_sound = "consonant" if r in (1, 5, 10, 15) else "a" if r == 11 else "vowel"
    if base == "a":
        return "a"
    if base == "an":
        return "ean" if ending_sound == "consonant" else "n" if ending_sound == "a" else "an"
    if base == "ko":
        return "eko" if ending_sound == "consonant" else "ko"
    return read


def _name(item: _Item, lang: str, index: int) -> str:
    """The calendar word `index` of the item's kind in `lang`, written like the item."""
    _forms, names, _c, _stems = _calendar()
    word = next((w for w in item.words if w.lang == lang), item.words[0])
    lang = word.lang
    full, abbreviations = names[(item.kind, lang, index)]
    if word.abbreviated:
        same = [a for a in abbreviations if len(a) == len(item.text)]
        new = same[0] if same else (abbreviations[0] if abbreviations else full[:3])
    elif lang == "eu" and word.ending:
        stem = full[:-1]
        new = stem + _eu_ending(word.ending, stem[-1] not in "aeiou")
    else:
        new = full
    return _case(item.text, new)


def _num_text(template: str, value: int, numeric: bool = True) -> str:
    """Zero-padded when the original was (`05`), or two digits wide in an all-numeric date."""
    if template.startswith("0") or (numeric and len(template) == 2):
        return f"{value:0{len(template)}d}"
    return str(value)


def _year_text(template: str, year: int) -> str:
    if "." in template:  # 2.003
        s = f"{year:04d}"
        return s[0] + "." + s[1:]
    if len(template) == 2:
        return f"{year % 100:02d}"
    return f"{year:04d}"


def _clamp(year: int, month: int, day: int) -> dt.date:
    year = min(max(year, 1), 9999)
    return dt.date(year, month, min(day, calendar.monthrange(year, month)[1]))


def _shift(date: dt.date, days: int) -> dt.date | None:
    try:
        return date + dt.timedelta(days=days)
    except OverflowError:
        return None


def shift_date(text: str, offset: int) -> str | None:
    """`text` shifted by `offset` days in its own format and language; None when it is not
    a date we read."""
    try:
        return _shift_date(text, offset)
    except (ValueError, KeyError, OverflowError):
        return None  # an odd shape gets the tag; it never fails a report


def _shift_date(text: str, offset: int) -> str | None:
    """The date `text` moved by `offset` days and written as it was (None: no date this module
    reads, or one moved out of the calendar)."""
    found = _analyse(text)
    if found is None:
        return None
    items, day, month, year, weekday, season, _langs, lang = found
    new = _shifted_fields(day, month, year, season, offset)
    if new is None:
        return None
    if "year" in new and not 1 <= new["year"] <= 9999:
        return None
    if weekday is not None and new.get("weekday") is None:
        new["weekday"] = (weekday - 1 + offset) % 7 + 1
    return _written(text, items, new, lang)


def _shifted_fields(
    day: int | None, month: int | None, year: int | None, season: int | None, offset: int
) -> dict[str, int] | None:
    """The fields a date of these parts has once moved by `offset` days: a season, a year, a
    month or a day at least one step away (a weekday alone: none; None: out of the calendar)."""
    step = 1 if offset > 0 else -1
    if season is not None and year is not None:
        return _shifted_season_year(season, year, offset)
    if season is not None:  # a season alone: the offset in seasons, at least one
        seasons = round(offset / 91.31)
        return {"season": (season - 1 + (seasons if seasons % 4 else seasons + step)) % 4 + 1}
    if month is None and day is None and year is not None:  # a year
        years = round(offset / 365.25) or step
        return {"year": year + years}
    if month is None and day is None:  # a weekday alone
        return {}
    assert month is not None  # a day comes with its month (_analyse)
    if day is None:  # month (and year)
        shifted = _shift(_clamp(year or 2001, month, 15), offset)
        if shifted is None:
            return None
        return {"month": shifted.month, "year": shifted.year}
    shifted = _shift(_clamp(year or 2001, month, day), offset)
    if shifted is None:
        return None
    new = {"day": shifted.day, "month": shifted.month, "year": shifted.year}
    if year is not None:
        new["weekday"] = shifted.isoweekday()
    return new


def _shifted_season_year(season: int, year: int, offset: int) -> dict[str, int] | None:
    """A season of a year moved by `offset` days: its middle month moves, and it becomes at
    least the next (or previous) season (None: out of the calendar)."""
    step = 1 if offset > 0 else -1
    middle = SEASON_MIDDLE[season]
    shifted = _shift(_clamp(year, middle, 15), offset)
    if shifted is None:
        return None
    new_season = {3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 3, 10: 3, 11: 3}.get(shifted.month, 4)
    # December: the next year's winter
    new_year = shifted.year + (1 if shifted.month == 12 else 0)
    if (new_season, new_year) == (season, year):  # still the same season: the next one
        new_season = (season - 1 + step) % 4 + 1
        # winter belongs to the year of its January: autumn -> next year's winter and back
        new_year += 1 if step > 0 and season == 3 else -1 if step < 0 and season == 4 else 0
    return {"season": new_season, "year": new_year}


def _written(text: str, items: list[_Item], new: dict[str, int], lang: str) -> str:
    """`text` with each of its items written anew from the `new` fields, the gaps between them
    as they were (a Catalan `de` before a month re-elided for the new month)."""
    numeric = not any(it.role in ("month_word", "month_roman") for it in items)
    pieces: list[str] = []
    pos = 0
    for i, it in enumerate(items):
        gap = text[pos : it.start]
        pos = it.end
        out = _item_text(it, new, numeric, lang)
        prev = items[i - 1] if i else None
        if (
            it.role == "month_word"
            and lang == "ca"
            and prev is not None
            and prev.kind == "connector"
            and not gap.strip()
            and prev.text.casefold().replace("’", "'") in ("de", "d'")
        ):
            # Catalan elision: `de febrer`, `d'abril`
            elided = lookup_key(out)[:1] in "aeiou"
            d = prev.text[0]
            pieces[-1] = d + "'" if elided else d + ("E" if prev.text.isupper() else "e")
            gap = "" if elided else " "
        pieces.append(gap)
        pieces.append(out)
    pieces.append(text[pos:])
    return "".join(pieces)


def _item_text(it: _Item, new: dict[str, int], numeric: bool, lang: str) -> str:
    """One item of a date written for the `new` fields, in the form, case and language it was
    written in (connectors as written)."""
    body, ending = it.text, it.ending
    if it.role == "day":
        out = _num_text(body, new["day"], numeric)
        if ending in ORDINALS:
            ending = ending if new["day"] == 1 else ""
        elif ending:
            ending = _eu_case(ending, _eu_number_ending(new["day"], ending))
        return out + ending
    if it.role == "month":
        return _num_text(body, new["month"])
    if it.role == "year":
        return _year_text(body, new["year"]) + (
            _eu_case(ending, _eu_number_ending(new["year"], ending)) if ending else ""
        )
    if it.role == "month_word":
        return _name(it, lang, new["month"])
    if it.role == "month_roman":
        roman = ROMAN_MONTHS[new["month"] - 1]
        return roman if it.text.isupper() else roman.lower()
    if it.role in ("weekday", "season"):
        return _name(it, lang, new[it.role])
    return it.text


def dates(text: str, label: str, ctx: Context) -> str | None:
    """FECHAS: the date shifted by the scope's offset (the operator chose it so that no
    shifted date of a report reproduces another PHI string); None (the tag) when the value
    is not a date read here."""
    shifted = shift_date(text, ctx.date_offset)
    if shifted is None:
        return None

    def make(rng, attempt):
        return shifted if attempt == 0 else None

    return ctx.draw(
        "date",
        text,
        make,
        check=lambda c, o: c is not None and lookup_key(c) != lookup_key(o),
        shape_fallback=False,
    )
