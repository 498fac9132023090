"""Numbered streets of Central America (`data/street_numbering.tsv`): an avenue or a street
written as an ordinal before its head (`6a. avenida`, `3a calle poniente`, `25 Avenida
Norte`) and Guatemala's zones (`zona 10`). A surrogate keeps the form: an ordinal gets
another number of the country's range, its suffix (`a`, `a.`, `ª`) as written; a zone
another zone of the country. The other parts of the value are left to the caller (`other`).
"""

import random
import re
from collections.abc import Callable
from functools import cache

from .tables import DATA, rows

FILE = "street_numbering.tsv"
PARTS = ("ordinal", "zone")
_HEADS = r"avenida|av\.?|ave\.?|calle|diagonal|pasaje|calzada|bulevar|boulevard"
ORDINAL = re.compile(
    r"(?<![\w.])(?P<number>\d{1,2})(?P<suffix>\s?(?:a|o|ª|º|ra|da|ta|va|na)\.?)?"
    r"(?=\s*(?:" + _HEADS + r")(?![\w]))",
    re.IGNORECASE,
)
ZONE = re.compile(r"(?<![\w])(?P<head>zona\s*)(?P<number>\d{1,2})(?!\d)", re.IGNORECASE)


class NumberingFileError(ValueError):
    """`data/street_numbering.tsv` is malformed (the message names the file and the row)."""


def _numbers(spec: str, where: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in spec.split("|"):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if m is None:
            raise NumberingFileError(f"{where}: {part!r} is no number nor range")
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        if low < 1 or high < low:
            raise NumberingFileError(f"{where}: empty range {part!r}")
        out.extend(range(low, high + 1))
    return tuple(out)


@cache
def numbering() -> dict[tuple[str, str], tuple[int, ...]]:
    """(country, part) -> the numbers a surrogate draws."""
    out = {}
    for fields in rows(FILE):
        where = f"{DATA / FILE}: {' '.join(fields)}"
        if len(fields) != 3 or fields[1] not in PARTS:
            raise NumberingFileError(
                f"{where}: expected country, part ({' or '.join(PARTS)}) and numbers"
            )
        out[(fields[0], fields[1])] = _numbers(fields[2], where)
    return out


def applies(country: str | None, text: str) -> bool:
    """Whether `text` holds a numbered part that `country`'s streets number."""
    table = numbering()
    return ((country, "ordinal") in table and ORDINAL.search(text) is not None) or (
        (country, "zone") in table and ZONE.search(text) is not None
    )


def _redraw(rng: random.Random, number: str, pool: tuple[int, ...]) -> str:
    others = [n for n in pool if str(n) != number.lstrip("0")] or list(pool)
    return str(rng.choice(others))


def surrogate(
    rng: random.Random, text: str, country: str | None, other: Callable[[str], str]
) -> str:
    """`text` with its ordinals and zones redrawn from `country`'s numbers and every other
    part written by `other`."""
    table = numbering()
    matches: list[tuple[re.Match, tuple[int, ...]]] = []
    for part, pattern in (("ordinal", ORDINAL), ("zone", ZONE)):
        pool = table.get((country or "", part))
        if pool:
            matches.extend((m, pool) for m in pattern.finditer(text))
    out, pos = [], 0
    for m, pool in sorted(matches, key=lambda mp: mp[0].start()):
        start = m.start("number")
        out.append(other(text[pos:start]) + _redraw(rng, m.group("number"), pool))
        pos = m.end("number")
    return "".join(out) + other(text[pos:])


def zone(rng: random.Random, text: str, country: str | None) -> str | None:
    """A value that is one zone (`zona 10`): another zone of `country`; None otherwise."""
    pool = numbering().get((country or "", "zone"))
    m = ZONE.fullmatch(text.strip())
    if not pool or m is None:
        return None
    return surrogate(rng, text, country, lambda part: part)
