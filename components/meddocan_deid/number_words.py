"""Spanish numbers written in words, as dictation writes them: read with their character
offsets, and written back.

`number_runs(text)` finds every number in words (`setenta y nueve`, `dos mil veintiséis`,
`cero cuarenta y dos`) with text2num's `find_numbers` (the parser behind its `alpha2digit`,
MIT), fed with the text's words so that each run keeps the offsets of its first and last
word. Words are read in any case; a spelling text2num does not know (`veintidos`,
`veintiún`) is read as the one it knows (`number_word_spellings.txt`). Digits, line breaks
and punctuation end a run. `spell(n)` and `spell_group(digits)` write a value in words that
`number_runs` reads back (leading zeros as `cero`). Reads strings only; no spaCy object.
"""

import re
from functools import cache
from typing import NamedTuple

from text_to_num import Token, find_numbers

from .lexicon import casefold_per_char, words

WORD = re.compile(r"[^\W\d_]+")
# what a word, a digit or a line break between number words is read as: it ends any run
BREAK = "\u00b6"
_UNITS = (
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince "
    "dieciséis diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés veinticuatro "
    "veinticinco veintiséis veintisiete veintiocho veintinueve"
).split()
_TENS = {
    3: "treinta",
    4: "cuarenta",
    5: "cincuenta",
    6: "sesenta",
    7: "setenta",
    8: "ochenta",
    9: "noventa",
}
_HUNDREDS = {
    1: "ciento",
    2: "doscientos",
    3: "trescientos",
    4: "cuatrocientos",
    5: "quinientos",
    6: "seiscientos",
    7: "setecientos",
    8: "ochocientos",
    9: "novecientos",
}


class NumberRun(NamedTuple):
    start: int  # character offsets of the run's first and last word
    end: int
    digits: str  # as text2num writes it: `79`, `042` (`cero cuarenta y dos`), `1º` (`primero`)
    value: int
    ordinal: bool


class _Word(Token):
    __slots__ = ("form",)

    def __init__(self, form: str):
        self.form = form

    def text(self) -> str:
        return self.form


@cache
def _spellings() -> dict[str, str]:
    return dict(line.split() for line in words("number_word_spellings"))


@cache
def number_word_set() -> frozenset:
    """The folded Spanish number words (`number_words.txt`)."""
    return frozenset(words("number_words"))


def has_number_word(text: str) -> bool:
    """Whether a word of `text` is a number word (`tres`, `Veintidós`, `MIL`)."""
    known = number_word_set()
    return any(casefold_per_char(m.group()) in known for m in WORD.finditer(text))


@cache
def _candidates() -> "re.Pattern":
    # the number words and `y`, folded; only these reach text2num (the rest of a text is a gap)
    words_ = sorted(number_word_set() | set(_spellings()) | {"y"}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words_)) + r")(?!\w)")


def number_runs(text: str, folded: str | None = None) -> list[NumberRun]:
    """The numbers in words of `text`, in order, with their character offsets (`folded`: the
    text through lexicon.casefold_per_char, when the caller has it)."""
    folded = casefold_per_char(text) if folded is None else folded
    spans, tokens = [], []
    spellings = _spellings()
    last = None
    for m in _candidates().finditer(folded):
        if last is not None:
            gap = text[last : m.start()]
            if gap.strip():
                # a word, a digit or a line break ends a run; a comma is text2num's to read
                punct = gap.strip()
                if len(punct) == 1 and not punct.isalnum() and "\n" not in gap:
                    tokens.append(_Word(punct))
                else:
                    tokens.append(_Word(BREAK))
                spans.append((last, last))
            elif "\n" in gap:
                tokens.append(_Word(BREAK))
                spans.append((last, last))
        spans.append(m.span())
        tokens.append(_Word(spellings.get(m.group(), text[m.start() : m.end()].lower())))
        last = m.end()
    if not tokens:
        return []
    runs = []
    for occ in find_numbers(tokens, "es", threshold=0):
        value = occ.value
        if value is None or value != int(value):
            continue
        runs.append(
            NumberRun(
                spans[occ.start][0], spans[occ.end - 1][1], occ.text, int(value), occ.is_ordinal
            )
        )
    return runs


def spell(n: int) -> str:
    """`n` (0 to 999,999,999) in Spanish words, as text2num reads it back: 79 `setenta y nueve`,
    2026 `dos mil veintiséis`, 100 `cien`."""
    if not 0 <= n < 10**9:
        raise ValueError(f"spell: {n} is out of range")
    if n < 30:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens] + (f" y {_UNITS[unit]}" if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        if n == 100:
            return "cien"
        return _HUNDREDS[hundreds] + (f" {spell(rest)}" if rest else "")
    if n < 10**6:
        thousands, rest = divmod(n, 1000)
        # `veintiún mil` and `un mil` are not read back by text2num: `veintiuno mil`, `mil`
        head = "mil" if thousands == 1 else f"{spell(thousands)} mil"
        return head + (f" {spell(rest)}" if rest else "")
    millions, rest = divmod(n, 10**6)
    head = "un millón" if millions == 1 else f"{spell(millions)} millones"
    return head + (f" {spell(rest)}" if rest else "")


def spell_group(digits: str) -> str:
    """A group of digits in words, its leading zeros as `cero`: `042` `cero cuarenta y dos`."""
    if not digits.isdigit():
        raise ValueError("spell_group: digits only")
    zeros = len(digits) - len(digits.lstrip("0"))
    rest = digits[zeros:]
    return " ".join(["cero"] * zeros + ([spell(int(rest))] if rest else []))


def read_digits(text: str) -> str:
    """The digits of the numbers in words of `text`, run after run (`seis uno cero cuarenta y
    dos` -> `61042`)."""
    return "".join(r.digits for r in number_runs(text) if not r.ordinal)
