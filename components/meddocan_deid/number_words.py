"""Numbers written in words, as dictation writes them, in Spanish, Catalan, Galician and
Basque: read with their character offsets, and written back.

`number_runs(text)` finds every number in words (`setenta y nueve`, `dos mil veintiséis`,
`cero cuarenta y dos`; `trenta-dos`, `vint-i-tres`, `dos-cents`; `trinta e dous`; `hogeita
hiru`, `berrogeita hamar`). Spanish is read with text2num's `find_numbers` (the parser behind
its `alpha2digit`, MIT), fed with the text's words so that each run keeps the offsets of its
first and last word; a spelling text2num does not know (`veintidos`, `veintiún`) is read as
the one it knows (`number_word_spellings.txt`). Catalan, Galician and Basque, which text2num
does not read, are read from their word lists (`number_word_values.txt`: each word's value,
the words that multiply or join), in the passages meddocan_deid.passage_language finds in
that language; where two readings of the same words differ, the longer run wins. Words are
read in any case; digits, line breaks and punctuation end a run. `spell(n, lang)` and
`spell_group(digits, lang)` write a value in words that `number_runs` reads back (leading
zeros as `cero`, `zero`). Reads strings only; no spaCy object.
"""

import re
from functools import cache
from typing import NamedTuple

from text_to_num import Token, find_numbers

from .lexicon import casefold_per_char, words
from .passage_language import passages

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
    return dict(line.split() for line in words("number_word_spellings", "es"))


@cache
def number_word_set(lang: str | None = None) -> frozenset:
    """The folded number words (`number_words.txt`) of `lang`, or of every language."""
    return frozenset(words("number_words", lang))


def has_number_word(text: str, lang: str | None = None) -> bool:
    """Whether a word of `text` is a number word (`tres`, `Veintidós`, `MIL`) of `lang`, or of
    any language."""
    known = number_word_set(lang)
    return any(casefold_per_char(m.group()) in known for m in WORD.finditer(text))


@cache
def _candidates() -> "re.Pattern":
    # the number words and `y`, folded; only these reach text2num (the rest of a text is a gap)
    words_ = sorted(number_word_set("es") | set(_spellings()) | {"y"}, key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words_)) + r")(?!\w)")


def number_runs(text: str, folded: str | None = None, lang: str | None = None) -> list[NumberRun]:
    """The numbers in words of `text`, in order, with their character offsets (`folded`: the
    text through lexicon.casefold_per_char, when the caller has it). With `lang`, in that
    language only; without, in Spanish and in the language of each passage."""
    folded = casefold_per_char(text) if folded is None else folded
    if lang is not None and lang != "es":
        return _word_list_runs(text, folded, lang, 0, len(text))
    runs = _spanish_runs(text, folded)
    if lang == "es":
        return runs
    others = [
        run
        for passage in passages(text)
        if passage.lang != "es"
        for run in _word_list_runs(text, folded, passage.lang, passage.start, passage.end)
    ]
    return _longest_first(runs, others) if others else runs


def _longest_first(runs: list[NumberRun], others: list[NumberRun]) -> list[NumberRun]:
    """The runs of two readings that do not overlap, the longer first where they do (the
    first reading's on a tie), in text order."""
    chosen: list[NumberRun] = []
    for run in sorted(runs + others, key=lambda r: -(r.end - r.start)):
        if all(run.end <= c.start or c.end <= run.start for c in chosen):
            chosen.append(run)
    return sorted(chosen, key=lambda r: r.start)


def _spanish_runs(text: str, folded: str) -> list[NumberRun]:
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


class _NumberWord(NamedTuple):
    """A number word of a word-list language: its value, or what it does to the number."""

    value: int  # the number it says (0 for a joiner or a multiplier)
    multiplier: int  # 100, 1000, 1000000 for `cents`, `mil`, `milioi`: what comes before, times it
    joiner: bool  # `i`, `e`, `eta`: joins two numbers
    room: int  # the smaller numbers it takes after it (`trenta` 10: `trenta-dos`; `hogeita` 20)
    ordinal: bool


def _default_room(value: int) -> int:
    if 20 <= value < 100 and value % 10 == 0:
        return 10
    if 100 <= value < 1000 and value % 100 == 0:
        return 100
    return 0


@cache
def _number_values(lang: str) -> dict[str, _NumberWord]:
    """word -> _NumberWord, from `<lang>/number_word_values.txt` (`word value [room=N]
    [ordinal]`)."""
    out: dict[str, _NumberWord] = {}
    where = f"pipeline/data/{lang}/number_word_values.txt"
    for line in words("number_word_values", lang):
        word, value, *flags = line.split()
        try:
            if value == "+":
                out[word] = _NumberWord(0, 0, True, 0, False)
                continue
            if value.startswith("x"):
                out[word] = _NumberWord(0, int(value[1:]), False, 0, False)
                continue
            number = int(value)
            room = _default_room(number)
            for flag in flags:
                if flag.startswith("room="):
                    room = int(flag[5:])
                elif flag != "ordinal":
                    raise ValueError(flag)
        except ValueError:
            raise ValueError(
                f"{where}: bad entry {line!r} (word value [room=N] [ordinal])"
            ) from None
        out[word] = _NumberWord(number, 0, False, room, "ordinal" in flags)
    return out


def ordinal_word(value: int, lang: str) -> str | None:
    """The ordinal in words of `value` in a word-list language (`primer`, `primeiro`), or None
    when its list has none."""
    return next(
        (w for w, v in _number_values(lang).items() if v.ordinal and v.value == value), None
    )


@cache
def _word_pattern(lang: str) -> "re.Pattern":
    known = sorted(_number_values(lang), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, known)) + r")(?!\w)")


class _Reading:
    """One run being read: what is said so far and what may still be added."""

    def __init__(self) -> None:
        self.spans: list[tuple[int, int]] = []
        self.total = 0  # thousands and millions already closed
        self.current = 0  # the part below a thousand being read
        self.room = 0  # what may be added to `current`
        self.scale = 10**9  # the next multiplier must be smaller than this one
        self.ordinal = False
        self.joiner: tuple[int, int] | None = None  # a joiner waiting for a number

    def take(self, word: _NumberWord, span: tuple[int, int]) -> bool:
        """Add the word to the run; False when it cannot go on this run."""
        if word.joiner:
            if not self.spans or self.joiner is not None or self.ordinal:
                return False
            self.joiner = span
            return True
        if self.ordinal or (word.ordinal and self.spans):
            return False
        if word.multiplier:
            if word.multiplier == 100:  # `dos-cents`: a unit right before, nothing joined
                if self.joiner or not 1 <= self.current <= 9 or self.room:
                    return False
                self.current *= 100
                self.room = 100
            else:
                if self.joiner or word.multiplier >= self.scale:
                    return False
                self.total += (self.current or 1) * word.multiplier
                self.current, self.room, self.scale = 0, word.multiplier, word.multiplier
            self.spans.append(span)
            return True
        if self.spans and not (word.value < self.room and word.value):
            return False
        self.current += word.value
        self.room = (
            min(word.room, self.room) if self.spans and self.current > word.value else word.room
        )
        self.ordinal = word.ordinal
        self.spans.append(span)
        self.joiner = None
        return True

    def run(self) -> NumberRun | None:
        if not self.spans:
            return None
        value = self.total + self.current
        digits = f"{value}º" if self.ordinal else str(value)
        return NumberRun(self.spans[0][0], self.spans[-1][1], digits, value, self.ordinal)


def _word_list_runs(text: str, folded: str, lang: str, start: int, end: int) -> list[NumberRun]:
    """The numbers in words of `lang` in text[start:end], read from its word lists: words
    follow each other with blanks or a hyphen between them (`vint-i-tres`)."""
    values = _number_values(lang)
    runs: list[NumberRun] = []
    reading = _Reading()

    def close() -> None:
        nonlocal reading
        run = reading.run()
        if run is not None:
            runs.append(run)
        reading = _Reading()

    last = None
    for m in _word_pattern(lang).finditer(folded, start, end):
        gap = text[last : m.start()] if last is not None else ""
        if last is not None and not (gap == "-" or (gap.strip() == "" and "\n" not in gap)):
            close()
        word = values[m.group()]
        if not reading.take(word, m.span()):
            close()
            reading.take(word, m.span())
        last = m.end()
    close()
    return [r for r in runs if r is not None]


_CA_UNITS = (
    "zero un dos tres quatre cinc sis set vuit nou deu onze dotze tretze catorze quinze setze "
    "disset divuit dinou"
).split()
_CA_TENS = "vint trenta quaranta cinquanta seixanta setanta vuitanta noranta".split()
_GL_UNITS = (
    "cero un dous tres catro cinco seis sete oito nove dez once doce trece catorce quince "
    "dezaseis dezasete dezaoito dezanove"
).split()
_GL_TENS = "vinte trinta corenta cincuenta sesenta setenta oitenta noventa".split()
_GL_HUNDREDS = (
    "cento douscentos trescentos catrocentos quiñentos seiscentos setecentos oitocentos novecentos"
).split()
_EU_UNITS = (
    "zero bat bi hiru lau bost sei zazpi zortzi bederatzi hamar hamaika hamabi hamahiru "
    "hamalau hamabost hamasei hamazazpi hemezortzi hemeretzi"
).split()
_EU_SCORES = {1: "hogei", 2: "berrogei", 3: "hirurogei", 4: "laurogei"}  # 20, 40, 60, 80
_EU_HUNDREDS = (
    "ehun berrehun hirurehun laurehun bostehun seiehun zazpiehun zortziehun bederatziehun"
).split()


def _spell_ca(n: int) -> str:
    if n < 20:
        return _CA_UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        link = "-i-" if tens == 2 else "-"
        return _CA_TENS[tens - 2] + (link + _CA_UNITS[unit] if unit else "")
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = "cent" if hundreds == 1 else f"{_CA_UNITS[hundreds]}-cents"
        return head + (f" {_spell_ca(rest)}" if rest else "")
    if n < 10**6:
        thousands, rest = divmod(n, 1000)
        head = "mil" if thousands == 1 else f"{_spell_ca(thousands)} mil"
        return head + (f" {_spell_ca(rest)}" if rest else "")
    millions, rest = divmod(n, 10**6)
    head = "un milió" if millions == 1 else f"{_spell_ca(millions)} milions"
    return head + (f" {_spell_ca(rest)}" if rest else "")


def _spell_gl(n: int) -> str:
    if n < 20:
        return _GL_UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _GL_TENS[tens - 2] + (f" e {_GL_UNITS[unit]}" if unit else "")
    if n < 1000:
        if n == 100:
            return "cen"
        hundreds, rest = divmod(n, 100)
        return _GL_HUNDREDS[hundreds - 1] + (f" {_spell_gl(rest)}" if rest else "")
    if n < 10**6:
        thousands, rest = divmod(n, 1000)
        head = "mil" if thousands == 1 else f"{_spell_gl(thousands)} mil"
        return head + (f" {_spell_gl(rest)}" if rest else "")
    millions, rest = divmod(n, 10**6)
    head = "un millón" if millions == 1 else f"{_spell_gl(millions)} millóns"
    return head + (f" {_spell_gl(rest)}" if rest else "")


def _spell_eu_below_100(n: int) -> str:
    if n < 20:
        return _EU_UNITS[n]
    scores, rest = divmod(n, 20)
    return _EU_SCORES[scores] + (f"ta {_EU_UNITS[rest]}" if rest else "")


def _spell_eu_below_1000(n: int) -> str:
    hundreds, rest = divmod(n, 100)
    if not hundreds:
        return _spell_eu_below_100(rest)
    return _EU_HUNDREDS[hundreds - 1] + (f" eta {_spell_eu_below_100(rest)}" if rest else "")


def _spell_eu(n: int) -> str:
    """Basque, vigesimal below a hundred (`laurogeita hamabi` 92); `eta` before the last part
    (`ehun eta bost`, `bi mila eta hogeita lau`)."""
    if n < 1000:
        return _spell_eu_below_1000(n)
    if n < 10**6:
        thousands, rest = divmod(n, 1000)
        head = "mila" if thousands == 1 else f"{_spell_eu_below_1000(thousands)} mila"
        if not rest:
            return head
        link = " eta " if rest < 100 or rest % 100 == 0 else " "
        return head + link + _spell_eu_below_1000(rest)
    millions, rest = divmod(n, 10**6)
    if millions == 1:
        raise ValueError("spell: a million in Basque (`milioi bat`) does not read back")
    return f"{_spell_eu(millions)} milioi" + (f" {_spell_eu(rest)}" if rest else "")


_SPELLERS = {"ca": _spell_ca, "gl": _spell_gl, "eu": _spell_eu}


def spell(n: int, lang: str = "es") -> str:
    """`n` (0 to 999,999,999) in words of `lang`, as `number_runs` reads it back: 79 `setenta y
    nueve`, 2026 `dos mil veintiséis`, 100 `cien`; `trenta-dos`, `trinta e dous`, `hogeita hiru`."""
    if not 0 <= n < 10**9:
        raise ValueError(f"spell: {n} is out of range")
    if lang != "es":
        if lang not in _SPELLERS:
            raise ValueError(f"spell: no numbers in words for language {lang!r}")
        return _SPELLERS[lang](n)
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


def spell_group(digits: str, lang: str = "es") -> str:
    """A group of digits in words of `lang`, its leading zeros as zero (`cero`, `zero`): `042`
    `cero cuarenta y dos`."""
    if not digits.isdigit():
        raise ValueError("spell_group: digits only")
    zeros = len(digits) - len(digits.lstrip("0"))
    rest = digits[zeros:]
    zero = spell(0, lang)
    return " ".join([zero] * zeros + ([spell(int(rest), lang)] if rest else []))


def read_digits(text: str, lang: str | None = None) -> str:
    """The digits of the numbers in words of `text` (in `lang`, or as number_runs reads it),
    run after run (`seis uno cero cuarenta y dos` -> `61042`)."""
    return "".join(r.digits for r in number_runs(text, lang=lang) if not r.ordinal)
