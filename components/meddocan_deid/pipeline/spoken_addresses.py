"""E-mail and web addresses dictated in words: `meddocan_number_words`' address reader.

`SpokenAddresses.find(folded)` returns (start, end, label) of:

- an e-mail said aloud (CORREO_ELECTRONICO): up to three words joined by `punto`, `guion`,
  `guion bajo` and an optional number in words (`ana punto gil setenta`), `arroba`, then a
  domain of words joined by `punto` that ends in a top-level domain (`gmail punto com`);
- a web address said aloud (DIREC_PROT_INTERNET): `http`, `https` or `www`, then parts joined
  by `dos puntos`, `barra`, `punto`, `guion`, `arroba` (one or two words each, the last one a
  word and an optional number in words): `https dos puntos barra barra sede punto
  justicia punto es`.

The joining words and the top-level domains are data (`address_joins`, `top_level_domains`).
Reads strings only (the folded text: meddocan_deid.lexicon.casefold_per_char).
"""

import re
from collections.abc import Iterable

from ..lexicon import casefold_per_char
from ..number_words import number_word_set

EMAIL = "CORREO_ELECTRONICO"
WEB = "DIREC_PROT_INTERNET"
LOCAL_WORDS = 3  # words of an e-mail's local part
NUMBER_WORDS = 24  # number words said in an address (digits of an e-mail or a web address)


def _alternation(items: Iterable[str]) -> str:
    phrases = sorted({casefold_per_char(w) for w in items}, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases) or "(?!)"


class SpokenAddresses:
    """E-mail and web addresses said word by word (see the module)."""

    def __init__(self, *, joins: Iterable[str], top_level_domains: Iterable[str]):
        join = rf"(?:{_alternation(joins)})"
        word = r"[^\W\d_][\w-]*"
        # at most NUMBER_WORDS number words: an unbounded run makes every word of a long list
        # of number words start a try to the list's end
        number = rf"(?:\s+(?:{_alternation(number_word_set())})(?:\s+y(?=\s))?){{0,{NUMBER_WORDS}}}"
        tld = _alternation(top_level_domains)
        self._email = re.compile(
            # a word starts after no word character and no hyphen: `[\w-]*` already takes a
            # hyphenated word whole, and a start at each hyphen would scan to the end each time
            rf"(?<![\w-]){word}(?:\s+{join}\s+{word}){{0,{LOCAL_WORDS - 1}}}{number}"
            rf"\s+arroba\s+{word}(?:\s+punto\s+{word})*?\s+punto\s+(?:{tld})(?!\w)"
        )
        self._web = re.compile(
            rf"(?<!\w)(?:https?|www)(?:\s+{join}(?:\s+{word}){{0,2}}(?=\s+{join}(?!\w)))*"
            rf"\s+{join}\s+{word}{number}(?!\w)"
        )

    def find(self, folded: str) -> list[tuple[int, int, str]]:
        """(start, end, label) of the spoken addresses of the folded text `folded`."""
        found = [(m.start(), m.end(), EMAIL) for m in self._email.finditer(folded)]
        for m in self._web.finditer(folded):
            if not any(s < m.end() and m.start() < e for s, e, _ in found):
                found.append((m.start(), m.end(), WEB))
        return sorted(found)
