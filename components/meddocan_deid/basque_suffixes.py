"""Basque case suffixes on names, places, institutions and nouns: read off a word, and put
on a new stem.

Basque writes a case as a suffix on the word (`Gasteizko`, of Vitoria; `Bilbon`, in Bilbao;
`Mikelen`, Mikel's; `Osakidetzako`; `alabarekin`, with the daughter). The suffixes are data
(`pipeline/data/eu/case_suffixes.txt`: each case with its form after a vowel, after a
consonant and, where it differs, after `n` or `l`: `Irungo`). `readings(word)` gives every
(stem, case) that writes the word; `inflect(stem, case)` writes a stem in a case, with the
form its last letter takes, a final `r` doubled before a vowel (`Aitorrek`) and `tz`, `ts`
written `z`, `s` before `k` (`Zarauzko`). A word is read only as a stem of three letters or
more; whether the stem is a name is for the caller to say. Reads strings only.
"""

from functools import cache
from typing import NamedTuple

from .lexicon import words

VOWELS = frozenset("aeiouáéíóú")
KINDS = ("place", "person", "any", "common")
MIN_STEM = 3


class Suffix(NamedTuple):
    case: str
    kind: str  # place, person, any (names and places), common (a noun's definite forms)
    vowel: str  # the form after a vowel
    consonant: str  # after a consonant
    after_nl: str  # after `n` or `l`, where it differs from `consonant` ("" otherwise)


@cache
def suffixes() -> tuple[Suffix, ...]:
    """The case suffixes of `eu/case_suffixes.txt`, in file order."""
    out = []
    for line in words("case_suffixes", "eu"):
        parts = line.split()
        if len(parts) not in (4, 5) or parts[1] not in KINDS:
            raise ValueError(
                f"pipeline/data/eu/case_suffixes.txt: bad line {line!r} "
                f"(case kind vowel-form consonant-form [n-l-form]; kind one of {KINDS})"
            )
        case, kind, vowel, consonant, *nl = parts
        out.append(Suffix(case, kind, vowel, consonant, nl[0] if nl else ""))
    return tuple(out)


@cache
def _by_case() -> dict[str, Suffix]:
    return {s.case: s for s in suffixes()}


def _form(stem: str, suffix: Suffix) -> str:
    last = stem[-1:].casefold()
    if last in VOWELS:
        return suffix.vowel
    if last in ("n", "l") and suffix.after_nl:
        return suffix.after_nl
    return suffix.consonant


def inflect(stem: str, case: str) -> str:
    """`stem` in `case` (`Gasteiz`, `local_genitive` -> `Gasteizko`; `Irun` -> `Irungo`;
    `Bilbo`, `inessive` -> `Bilbon`); in capitals when the stem is (`BILBON`)."""
    suffix = _by_case().get(case)
    if suffix is None:
        raise KeyError(f"no Basque case {case!r} in pipeline/data/eu/case_suffixes.txt")
    form = _form(stem, suffix)
    body, low = stem, stem.casefold()
    if low.endswith("r") and form[:1] in VOWELS:
        body += stem[-1]  # `Aitor` -> `Aitorrek`
    elif form.startswith("k") and low.endswith(("tz", "ts")):
        body = stem[:-2] + stem[-1]  # `Zarautz` -> `Zarauzko`
    return body + (form.upper() if stem.isupper() and len(stem) > 1 else form)


def readings(
    word: str, kinds: tuple[str, ...] = ("place", "person", "any")
) -> list[tuple[str, str]]:
    """Every (stem, case) of the suffixes of `kinds` that writes `word`, the longest suffix
    first: `Gasteizko` -> [(`Gasteiz`, `local_genitive`)], `Aitorrek` -> [(`Aitor`,
    `ergative`)], `Zarauzko` -> [(`Zarautz`, `local_genitive`)]."""
    low = word.casefold()
    found: list[tuple[str, str]] = []
    ranked = sorted(
        (s for s in suffixes() if s.kind in kinds),
        key=lambda s: -max(len(s.vowel), len(s.consonant), len(s.after_nl)),
    )
    for suffix in ranked:
        for form in dict.fromkeys(
            f for f in (suffix.vowel, suffix.consonant, suffix.after_nl) if f
        ):
            if not low.endswith(form) or len(word) - len(form) < MIN_STEM:
                continue
            stem = word[: len(word) - len(form)]
            candidates = [stem]
            if stem.casefold().endswith("rr"):
                candidates = [stem[:-1]]
            elif form.startswith("k") and stem.casefold()[-1:] in ("z", "s"):
                candidates.append(stem[:-1] + ("T" if stem.isupper() else "t") + stem[-1])
            for candidate in candidates:
                if inflect(candidate, suffix.case).casefold() == low:
                    found.append((candidate, suffix.case))
    return list(dict.fromkeys(found))


def case_of(stem: str, word: str) -> str | None:
    """The case in which `word` writes `stem` (`Gasteiz`, `Gasteizko` -> `local_genitive`),
    or None when it does not."""
    key = stem.casefold()
    return next(
        (case for s, case in readings(word, KINDS) if s.casefold() == key),
        None,
    )
