"""Values dictated in words: their surrogate is written in words too.

A value whose numbers are all in words (`tres de marzo de dos mil veintiséis`, `seis uno
cero cuarenta y dos ...`) is read as digits with its own gaps (`3 de marzo de 2026`,
`6 1 042 ...`), given the surrogate its kind gives digits (the date shifted by the report's
offset, a phone with a new prefix and digits, an identifier of the same shape, a postal code
of a real province), and written back in words: a date keeps its form (`diecisiete de mayo de
dos mil veintiséis`, `primero` for `1º`), a code its grouping (one number in words for each
group of the original, leading zeros as `cero`; where two groups would read back as one,
`novecientos quince`, digit by digit), each number in the case of the one it replaces. The
result is checked to read back (meddocan_deid.number_words) to the surrogate's digits. A
value is read, and written back, in the language of its passage (`ctx.lang`: Catalan
`trenta-dos`, Galician `trinta e dous`, Basque `hogeita hiru`) when its numbers read in it,
else in Spanish. A value with a digit, or with words that are not numbers, goes to the
generator as it is. Ages need nothing: they are kept as written (person.ages).
"""

import functools
import re
from collections.abc import Callable

from ...number_words import (
    NumberRun,
    number_runs,
    ordinal_word,
    read_digits,
    spell,
    spell_group,
)
from .common import Context, case_like

Generator = Callable[[str, str, Context], str | None]
CODE_GAP = re.compile(
    r"[\s,\-.]*(?:letra\s+)?[A-Za-z]?[\s.]*"
)  # between and after the groups: blanks, a DNI letter
_DIGITS = re.compile(r"\d+º?")
_BARRA = re.compile(r"(?<=\d)\s+barra\s+(?=\d)", re.IGNORECASE)


def _first(lang: str) -> str:
    """The first ordinal in words, for `1º` (`primero de mayo`, `primer de maig`); a language
    without one says the number (`bat`)."""
    if lang == "es":
        return "primero"
    return ordinal_word(1, lang) or spell(1, lang)


def _in_words(text: str, lang: str = "es") -> tuple[list[NumberRun], str] | None:
    """The runs of `text` and the language they read in: the passage's, when its reading
    covers as much of the text as the Spanish one, else Spanish."""
    if any(c.isdigit() for c in text):
        return None
    spanish = number_runs(text, lang="es")
    if lang != "es":
        own = number_runs(text, lang=lang)
        if own and sum(r.end - r.start for r in own) >= sum(r.end - r.start for r in spanish):
            return own, lang
    return (spanish, "es") if spanish else None


def _digit_form(text: str, runs: list[NumberRun]) -> str:
    out, pos = [], 0
    for run in runs:
        out += [text[pos : run.start], run.digits]
        pos = run.end
    return "".join(out + [text[pos:]])


def _cased(template: str, words: str) -> str:
    return case_like(template, words) if any(c.isupper() for c in template) else words


def dates_in_words(generator: Generator) -> Generator:
    """FECHAS: a date in words is shifted as its digit form and written back in words."""

    @functools.wraps(generator)
    def dates(text: str, label: str, ctx: Context) -> str | None:
        found = _in_words(text, getattr(ctx, "lang", "es"))
        if found is None:
            return generator(text, label, ctx)
        runs, lang = found
        digit_form = _digit_form(text, runs)
        # `doce barra tres barra dos mil veinte`: read as `12/3/2020`, the `barra` written back
        slashes = _BARRA.findall(digit_form)
        new = generator(_BARRA.sub("/", digit_form) if slashes else digit_form, label, ctx)
        if new is None:
            return None
        if slashes:
            parts = new.split("/")
            if len(parts) != len(slashes) + 1:
                return None
            new = "".join(p + (slashes[i] if i < len(slashes) else "") for i, p in enumerate(parts))
        numbers = list(_DIGITS.finditer(new))
        out, pos = [], 0
        for i, m in enumerate(numbers):
            template = text[runs[min(i, len(runs) - 1)].start : runs[min(i, len(runs) - 1)].end]
            value = m.group()
            words = _first(lang) if value.endswith("º") else spell(int(value), lang)
            out += [new[pos : m.start()], _cased(template, words)]
            pos = m.end()
        return "".join(out + [new[pos:]])

    return dates


def _groups(text: str, runs: list[NumberRun]) -> tuple[list[str], str] | None:
    """The gaps between the runs of a code in words (each a blank, a comma, a DNI letter) and
    what follows the last one; None when other words are in it."""
    pieces = (
        [text[: runs[0].start]]
        + [text[a.end : b.start] for a, b in zip(runs, runs[1:])]
        + [text[runs[-1].end :]]
    )
    if (
        pieces[0].strip()
        or not all(CODE_GAP.fullmatch(p) for p in pieces[1:])
        or any(r.ordinal for r in runs)
    ):
        return None
    return pieces[1:-1], pieces[-1]


def _pieces(
    text: str, runs: list[NumberRun], gaps: list[str], tail: str
) -> list[tuple[str, int, str]]:
    """(words, number of digits, what follows) of each group as dictated: text2num reads
    `cero cero nueve` as one number (`009`), dictation says three."""
    pieces = []
    for i, run in enumerate(runs):
        after = gaps[i] if i < len(gaps) else tail
        words = text[run.start : run.end]
        zeros = len(run.digits) - len(run.digits.lstrip("0"))
        parts = words.split(None, zeros) if zeros else [words]
        if len(parts) == zeros + 1:  # each leading `cero` a group of its own
            pieces += [(w, 1, " ") for w in parts[:-1]] + [
                (parts[-1], len(run.digits) - zeros, after)
            ]
        elif len(parts) == zeros and len(run.digits) == zeros:  # only zeros
            pieces += [(w, 1, " ") for w in parts[:-1]] + [(parts[-1], 1, after)]
        else:
            pieces.append((words, len(run.digits), after))
    return pieces


def _spell_code(
    text: str,
    runs: list[NumberRun],
    new_digits: str,
    gaps: list[str],
    tail: str,
    lang: str = "es",
) -> str:
    """`new_digits` in words of `lang`, in the original's groups (their lengths), gaps and case."""
    pieces = _pieces(text, runs, gaps, tail)
    groups, pos = [], 0
    for _, n, _ in pieces:
        groups.append(new_digits[pos : pos + n])
        pos += n
    for by_digit in (False, True):
        out = []
        for (template, _, after), group in zip(pieces, groups):
            words = (
                " ".join(spell_group(d, lang) for d in group)
                if by_digit
                else spell_group(group, lang)
            )
            out += [_cased(template, words), after]
        spelled = "".join(out)
        if read_digits(spelled, lang) == new_digits:
            return spelled
    raise ValueError("spelled code does not read back")  # spell_group digit by digit always does


def codes_in_words(generator: Generator, postal: bool = False) -> Generator:
    """Phones, faxes, identifiers (and with `postal`, postal codes: TERRITORIO) in words: a new
    value from the generator's digits, written in words in the original's groups."""

    @functools.wraps(generator)
    def codes(text: str, label: str, ctx: Context) -> str | None:
        found = _in_words(text, getattr(ctx, "lang", "es"))
        runs, lang = found if found is not None else (None, "es")
        parts = _groups(text, runs) if runs else None
        if runs is None or parts is None:
            return generator(text, label, ctx)
        gaps, tail = parts
        digits = "".join(r.digits for r in runs)
        if postal and len(digits) != 5:
            return generator(text, label, ctx)
        # a spoken code has several number words and digits; a code of letters that reads as
        # one number word (`UN`, `MIL`) keeps its shape through the generator
        if not postal and (len(digits) < 3 or len(text.split()) < 2):
            return generator(text, label, ctx)
        # a postal code is read whole (`28009`); a code keeps its gaps, and a DNI its letter
        new = generator(digits if postal else _digit_form(text, runs), label, ctx)
        if new is None:
            return None
        new_digits = "".join(re.findall(r"\d", new))
        if len(new_digits) != len(digits):
            return None
        letter = re.search(r"[A-Za-z]\W*$", new) if re.search(r"[A-Za-z]", tail) else None
        if letter:  # the generator's (valid) check letter in place of the original's
            tail = re.sub(r"[A-Za-z](?=\W*$)", letter.group()[0], tail)
        return _spell_code(text, runs, new_digits, gaps, tail, lang)

    return codes
