"""Names, places and institutions written with a Basque case suffix: the surrogate is made
for the bare name and written with the same suffix, in the form its own last letter takes
(`Gasteizko` -> `Bilboko`, `Bilbon` -> `Irunen`, `Mirenen` -> `Ainhoaren`, `Gurutzetako
ospitalean` -> `Basurtuko ospitalean`).

Only for a value of a Basque passage (`ctx.lang`), and only where the bare word is a name we
know: one of the gazetteer's names and places, a Basque place name of the word lists, or
another PHI value of the same report (`Osakidetza` beside `Osakidetzako`); a word that is
itself a known name, or that no suffix reading makes one, goes to the generator as it is
(meddocan_deid.basque_suffixes reads and writes the suffixes).
"""

import functools
from collections.abc import Callable

from ...basque_suffixes import inflect, readings
from ...lexicon import lookup_key, words
from .common import Context

Generator = Callable[[str, str, Context], str | None]
NAME_KINDS = ("place", "person", "any")
GAZETTEER_KINDS = ("first_names", "surnames", "towns", "territories")
TOWN = "TERRITORIO"


@functools.cache
def _place_names() -> frozenset[str]:
    return frozenset(lookup_key(w) for w in words("town_names") + words("country_names"))


def _listed(word: str, ctx: Context) -> bool:
    """A name or place of the gazetteer or of the Basque place lists."""
    return lookup_key(word) in _place_names() or any(
        ctx.gaz.contains(kind, word) for kind in GAZETTEER_KINDS
    )


def _stem(word: str, ctx: Context, kinds=NAME_KINDS) -> tuple[str, str] | None:
    """(stem, case) of a word that is a known name (listed, or another PHI value of the
    report) with a case suffix, and not a listed name itself."""
    if not word[:1].isupper() or _listed(word, ctx):
        return None
    return next(
        (
            (s, c)
            for s, c in readings(word, kinds)
            if _listed(s, ctx) or lookup_key(s) in ctx.forbidden_exact
        ),
        None,
    )


def _inflect_last(value: str, case: str) -> str:
    head, sep, last = value.rpartition(" ")
    return head + sep + inflect(last, case)


def suffixed(generator: Generator, town_generator: Generator | None = None) -> Generator:
    """`generator` for the bare name of a suffixed value of a Basque passage, the suffix put
    back on its result; `town_generator`: the place before a facility word (`Gurutzetako
    ospitalean`), whose surrogate takes the place of the place only."""

    @functools.wraps(generator)
    def basque(text: str, label: str, ctx: Context) -> str | None:
        if getattr(ctx, "lang", "es") != "eu" or not text.strip():
            return generator(text, label, ctx)
        first, sep, rest = text.partition(" ")
        if sep and town_generator is not None and rest.islower():
            found = _stem(first, ctx, ("place",))
            if found is not None and found[1] == "local_genitive":
                new = town_generator(found[0], TOWN, ctx)
                return None if new is None else _inflect_last(new, found[1]) + sep + rest
        head, sep, last = text.rpartition(" ")
        found = _stem(last, ctx)
        if found is None:
            return generator(text, label, ctx)
        stem, case = found
        new = generator(head + sep + stem, label, ctx)
        return None if new is None else _inflect_last(new, case)

    return basque
