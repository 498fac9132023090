"""The language of each passage of a text: Spanish, Catalan, Galician or Basque.

A light detector from word lists (`pipeline/data/<lang>/language_words.txt`: words frequent in
one of the four languages and rare in the other three, read by meddocan_deid.lexicon): a line
is in the language with the most of its words, when one has two or more and more than every
other; a line without a winner takes its paragraph's language (the lines between blank lines,
their words counted together), a paragraph without one the text's, and a text without one is
Spanish.
Clinical records alternate languages by passages (a Catalan paragraph after a Spanish
header), so a line is the unit, and its paragraph the context. Reads strings only.
"""

import re
from collections import Counter
from functools import cache
from typing import NamedTuple

from .lexicon import LANGUAGES, words

DEFAULT = "es"
MIN_MARKS = 2  # the marks a line, a paragraph or a text needs to be in a language
WORD = re.compile(r"[^\W\d_]+")


class Passage(NamedTuple):
    start: int  # character offsets of the line
    end: int
    lang: str


@cache
def _language_words() -> dict[str, str]:
    """word -> the one language it marks (a word listed for two languages marks none)."""
    seen: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        for word in words("language_words", lang):
            seen.setdefault(word.lower(), set()).add(lang)
    return {word: langs.pop() for word, langs in seen.items() if len(langs) == 1}


def _votes(text: str) -> Counter:
    marks = _language_words()
    return Counter(marks[w] for w in (m.group().lower() for m in WORD.finditer(text)) if w in marks)


def _winner(votes: Counter) -> str | None:
    """The language with the most marks, when it has two or more and more than any other (one
    word alone may be a word of another language: Spanish `pare`, a verb)."""
    ranked = votes.most_common(2)
    if not ranked or ranked[0][1] < MIN_MARKS:
        return None
    if len(ranked) == 2 and ranked[0][1] == ranked[1][1]:
        return None
    return ranked[0][0]


def text_language(text: str) -> str:
    """The language of a whole text (a value, a sentence): the most of its words; Spanish
    when no language has more than the others."""
    return _winner(_votes(text)) or DEFAULT


def passages(text: str) -> list[Passage]:
    """Every line of `text` (without its line break) with its language, in order."""
    lines: list[tuple[int, int, Counter, int]] = []  # start, end, votes, paragraph
    paragraph, start = 0, 0
    for line in text.split("\n"):
        if not line.strip():
            paragraph += 1
        lines.append((start, start + len(line), _votes(line), paragraph))
        start += len(line) + 1
    by_paragraph: dict[int, Counter] = {}
    for _s, _e, votes, par in lines:
        by_paragraph.setdefault(par, Counter()).update(votes)
    whole = _winner(sum(by_paragraph.values(), Counter())) or DEFAULT
    out = []
    for start, end, votes, par in lines:
        lang = _winner(votes) or _winner(by_paragraph[par]) or whole
        out.append(Passage(start, end, lang))
    return out


def language_at(found: list[Passage], offset: int) -> str:
    """The language of the passage that holds character `offset` (Spanish outside them)."""
    for passage in found:
        if passage.start <= offset <= passage.end:
            return passage.lang
    return DEFAULT
