"""Addresses given from a landmark (`de donde fue el cine 2 c. al sur`, `del parque central
1 c. arriba, 20 vrs. al lago`, `de la iglesia 200 m al norte`), as Nicaragua and Costa Rica
write them: a CALLE value of that form gets another landmark of `data/landmarks.tsv` (a place
every town has: the original's may name a business or a person), the same legs with new
distances of the same unit (cuadras 1 to 5, varas and metres 25 to 500), and each direction
another of its set (`norte`, `sur`, `este`, `oeste`; Managua's `arriba`, `abajo`, `al lago`,
`al sur`). None: not of that form.
"""

import random
import re
from functools import cache

from .tables import rows

FILE = "landmarks.tsv"
_UNIT = r"c\.|cs\.|cdas?\.?|cuadras?|vrs\.?|varas?|mts?\.?|metros|m\.?"
# every repeat bounded (a landmark of 80 characters, legs of 160, blanks of 3): on a long run
# of digits or of `de ` an unbounded one retried at every start took minutes
_DISTANCE = r"\d{1,4}|media|una|dos|tres|cuatro|cinco"
LEG = re.compile(
    r"(?<!\d)(?P<distance>" + _DISTANCE + r")\s{0,3}(?P<unit>" + _UNIT + r")(?=\s|,|$)\s{0,3}"
    r"(?P<direction>al lago|al sur|al norte|al este|al oeste|hacia el (?:norte|sur|este|oeste)"
    r"|arriba|abajo|norte|sur|este|oeste)",
    re.IGNORECASE,
)
FORM = re.compile(
    r"(?P<start>del?)\s{1,3}(?P<landmark>.{1,80}?),?\s{1,3}"
    r"(?=(?:" + _DISTANCE + r")\s{0,3}(?:" + _UNIT + r"))(?P<legs>.{1,160})$",
    re.IGNORECASE | re.DOTALL,
)
_BLOCKS = re.compile(r"c\.|cs\.|cdas?\.?|cuadras?", re.IGNORECASE)


@cache
def landmarks() -> tuple[str, ...]:
    return tuple(value for kind, value, *_ in rows(FILE) if kind == "landmark")


@cache
def direction_sets() -> dict[str, tuple[str, ...]]:
    """Folded direction -> the directions of its set."""
    sets: dict[str, list[str]] = {}
    for kind, value, *rest in rows(FILE):
        if kind == "direction":
            sets.setdefault(rest[0] if rest else "", []).append(value)
    return {v.lower(): tuple(s) for s in sets.values() for v in s}


def _legs_ok(legs: str) -> bool:
    """The legs are legs only, with their separators (`2 c. al sur, 1 c. arriba`)."""
    return re.fullmatch(r"[\s,y.]*", LEG.sub("", legs)) is not None and LEG.search(legs) is not None


def read(value: str) -> re.Match | None:
    """The match of a landmark address, or None."""
    m = FORM.fullmatch(value.strip())
    return m if m is not None and _legs_ok(m.group("legs")) else None


def _distance(rng: random.Random, unit: str, old: str) -> str:
    if _BLOCKS.fullmatch(unit):
        pool = [str(n) for n in range(1, 6)]
    else:
        pool = [str(n) for n in (25, 50, 75, 100, 150, 200, 250, 300, 400, 500)]
    others = [p for p in pool if p != old] or pool
    return rng.choice(others)


def _direction(rng: random.Random, old: str) -> str:
    head = ""
    word = old
    m = re.match(r"(?i)(hacia el |al )(?=norte|sur|este|oeste)", old)
    if m and old.lower() not in direction_sets():
        head, word = m.group(), old[m.end() :]
    pool = direction_sets().get(word.lower(), (word,))
    new = rng.choice([d for d in pool if d != word.lower()] or list(pool))
    return head + (new.upper() if word.isupper() else new)


def surrogate(rng: random.Random, value: str) -> str | None:
    """A landmark address of the same form (see the module), or None."""
    m = read(value)
    if m is None:
        return None
    landmark = rng.choice(landmarks())
    start = m.group("start")
    # `del parque`, `de la iglesia`: the contraction follows the new landmark
    lead = "del" if landmark.startswith("el ") else "de"
    text = lead + " " + (landmark[3:] if lead == "del" else landmark)
    if start[:1].isupper():
        text = text[0].upper() + text[1:]

    def leg(lm: re.Match) -> str:
        distance = lm.group("distance")
        new = (
            _distance(rng, lm.group("unit"), distance)
            if distance.isdigit()
            else distance  # `media`, `una`: a number in words kept
        )
        gap = lm.group()[len(distance) : lm.start("direction") - lm.start()]
        return new + gap + _direction(rng, lm.group("direction"))

    return text + " " + LEG.sub(leg, m.group("legs"))
