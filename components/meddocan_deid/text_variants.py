"""Copies of a text as other writers type it, every character at its offset.

Lower case, capitals, no accents and hard-wrapped lines: each variant keeps the text's length
and maps character i to character i, so that gold offsets hold by construction (a character
whose case mapping would change the length, such as `ß` in capitals, stays as it is). The
training copies (`scripts/train_mix.py`) and the case-robustness scores
(`scripts/evaluate_formats.py --case`) use them.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable

VARIANTS = ("lower", "upper", "no_accents", "broken_lines")
_KEEP = {"ñ", "Ñ"}  # typed without accents, a Spanish ñ usually stays


def _per_char(text: str, fn: Callable[[str], str]) -> str:
    out = []
    for ch in text:
        mapped = fn(ch)
        out.append(mapped if len(mapped) == 1 else ch)
    return "".join(out)


def lower(text: str) -> str:
    return _per_char(text, str.lower)


def upper(text: str) -> str:
    return _per_char(text, str.upper)


def _bare(ch: str) -> str:
    if ch in _KEEP or ch.isascii():
        return ch
    base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
    return base if len(base) == 1 else ch


def no_accents(text: str) -> str:
    return _per_char(text, _bare)


def broken_lines(text: str, rng: random.Random | None = None, width: int = 0) -> str:
    """Hard-wrapped as a pasted export: a space past the line's width becomes a line break
    (width drawn from 40-90 when not given)."""
    rng = rng or random.Random(0)
    width = width or rng.randint(40, 90)
    chars = list(text)
    col = 0
    for i, ch in enumerate(chars):
        if ch == "\n":
            col = 0
            continue
        col += 1
        if ch == " " and col > width:
            chars[i] = "\n"
            col = 0
    return "".join(chars)


def variant(text: str, kind: str, rng: random.Random | None = None) -> str:
    """The `kind` copy of `text` (one of VARIANTS); same length, same offsets."""
    makers: dict[str, Callable[[str], str]] = {
        "lower": lower,
        "upper": upper,
        "no_accents": no_accents,
        "broken_lines": lambda t: broken_lines(t, rng),
    }
    if kind not in makers:
        raise ValueError(f"unknown text variant {kind!r} (one of {', '.join(VARIANTS)})")
    out = makers[kind](text)
    assert len(out) == len(text)
    return out
