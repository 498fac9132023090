"""The checks a name list passes before surrogates are drawn from it (experiments/name_lists.py runs
them and writes what they keep to `data/names.tsv`, and what they remove or respell in the
task gazetteer's surnames, with the reason, to `data/name_checks.tsv`).

A name is removed when it is:
- `common word`: a Spanish dictionary word (spacy-lookups-data lemmas) that no list but the
  one checked holds (`Colirio`); a word that is also a listed name (`Blanco`, `Rosa`) stays;
- `variant of X`: not a known name (the trusted lists, the frequency list) and X is, written
  with one of the letters Spanish spelling confuses (b/v, x/j, y/i, z/s, c/s, c/z, g/j, q/g,
  k/c, an h more or less): archaic spellings and misspellings (`Xaramillo`, `Ybanez`,
  `Quebedo`); or X is a frequent surname one letter added, dropped or swapped away
  (`Garica`, `Hernadez`), or the name is X cut short (`Jos`);
- `rarer spelling of X`: in the frequency list, but such a variant of a surname at least
  RARER times as frequent (`Rodriquez` beside `Rodriguez`), or an archaic first letter of a
  commoner surname (`Ybanez`, `Ybarra`);
- `accent`: an acute accent where Spanish spelling forbids one (`Crúz`, `Rafaél`, `Ortíz`);
- `several words` (`José Luis`: drawn word by word), `not a name`: a digit, or a known joke
  of a list (`Gollum`);
- `Nahuatl`: a Nahuatl name (`Citlali`, `Xóchitl`, `Cuauhtémoc`) in a list for a country
  other than Mexico.
A name kept is written in the trusted spelling of its folded form when there is one
(`Trevino` -> `Treviño`, `Garcia` -> `García`).
"""

import re
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from ...lexicon import lookup_key

RARER = 20
NOT_NAMES = frozenset({"gollum"})
_NAHUATL = re.compile(r"tl(?!l)|cuauh|xoch|^itze|tzin|huitz")  # not Catalan `tll` (Batlle)
_VOWELS = "aeiouáéíóúü"
_ACUTE = "áéíóú"


class Removal(NamedTuple):
    name: str
    reason: str


def syllable_nuclei(word: str) -> list[tuple[int, int]]:
    """(start, end) of the vowel groups of a lower-case word; an accented or a strong vowel
    next to another strong vowel starts a new group (hiatus: `Raúl`, `Leo`)."""
    groups: list[tuple[int, int]] = []
    strong = "aeoáéóíú"
    i = 0
    while i < len(word):
        silent_u = word[i] == "u" and (
            word[i - 1 : i] == "q"
            or (word[i - 1 : i] == "g" and word[i + 1 : i + 2] and word[i + 1] in "eiéí")
        )  # `que`, `gui`: the u is a letter, not a vowel
        if word[i] in _VOWELS and not silent_u:
            j = i + 1
            while (
                j < len(word)
                and word[j] in _VOWELS
                and not (word[j] in strong and word[j - 1] in strong)
            ):
                j += 1
            groups.append((i, j))
            i = j
        else:
            i += 1
    return groups


def accent_problem(name: str) -> bool:
    """An acute accent that Spanish spelling forbids: on a word of one syllable (`Crúz`,
    `Ruíz`), or on the last syllable of a word ending in a consonant other than n or s
    (`Rafaél`, `Ortíz`, `Manuél`); an í or ú beside a, e or o marks a hiatus (`Raúl`)."""
    word = name.lower()

    def hiatus(i: int) -> bool:  # `Raúl`, `María`: í or ú beside a, e or o marks a hiatus
        return word[i] in "íú" and any(
            0 <= j < len(word) and word[j] in "aeo" for j in (i - 1, i + 1)
        )

    accented = [i for i, c in enumerate(word) if c in _ACUTE and not hiatus(i)]
    if not accented:
        return False
    nuclei = syllable_nuclei(word)
    if len(nuclei) <= 1:
        return True
    last_start, last_end = nuclei[-1]
    on_last = any(last_start <= i < last_end for i in accented)
    return on_last and word[-1] not in _VOWELS + "ns"


def one_edit(a: str, b: str) -> bool:
    """`a` and `b` differ by one substitution, insertion, deletion or swap of two neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    for i in range(len(long_)):
        if long_[:i] + long_[i + 1 :] == short:
            return True
    return False


# letters Spanish spelling confuses (folded forms): one for the other makes a variant; x/j
# and y/i only as the first letter (the archaic `Xaramillo`, `Ybanez`)
CONFUSABLE = frozenset(frozenset(p) for p in ("bv", "zs", "cs", "cz", "qg", "gj"))
INITIAL = frozenset(frozenset(p) for p in ("xj", "yi"))
# of these, the pairs whose rarer spelling is removed even when it is frequent, if RARER
# times rarer (`Rodriquez`, `Hernandes`; `Flórez` and `Gonzales` are common enough to stay)
RARE_PAIRS = frozenset(frozenset(p) for p in ("bv", "qg", "zs"))
FIRST_NAME_PAIRS = frozenset(frozenset(p) for p in ("bv",))
TOP = 100  # a name one edit from one of the TOP most frequent surnames is a misspelling of it


def spelling_variant(a: str, b: str, pairs: frozenset = CONFUSABLE) -> bool:
    """`a` and `b` (folded, different) differ in one letter of a confusable pair."""
    if len(a) != len(b):
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) != 1:
        return False
    pair = frozenset((a[diff[0]], b[diff[0]]))
    return pair in pairs or (diff[0] == 0 and pair in INITIAL)


class _NameChecks:
    """The checks of one list (see the module and `filter_names`), with what they derive once
    from the known names: the known names by length and the TOP most frequent surnames."""

    def __init__(
        self,
        trusted: Mapping[str, str],
        frequency: Mapping[str, int],
        dictionary: frozenset[str],
        country: str,
        spellings: Mapping[str, str],
        listed: frozenset[str],
        pairs: frozenset,
    ):
        self.trusted = trusted
        self.frequency = frequency
        self.dictionary = dictionary
        self.country = country
        self.spellings = spellings
        self.listed = listed
        self.pairs = pairs
        self.known = set(trusted) | set(frequency)
        self.by_length: dict[int, list[str]] = {}
        for k in self.known:
            self.by_length.setdefault(len(k), []).append(k)
        self.top = frozenset(sorted(frequency, key=lambda k: -frequency[k])[:TOP])

    def near(self, key: str, close) -> list[str]:
        """The known names of one letter more, as many or one less that `close` accepts,
        the most frequent first."""
        found = [
            k
            for n in (len(key) - 1, len(key), len(key) + 1)
            for k in self.by_length.get(n, ())
            if k != key and close(key, k)
        ]
        return sorted(found, key=lambda k: -self.frequency.get(k, 0))

    def frequent_edit(self, key: str, other: str) -> bool:  # `Garica`, `Hernadez`, `Jiminez`
        """`other` is a TOP surname one edit from `key`, with the same first letter."""
        if other not in self.top or not one_edit(key, other) or key[:1] != other[:1]:
            return False  # a first letter of its own makes another name (`Ara`, `Lara`)
        if len(key) == len(other):  # a vowel for a vowel, or two letters swapped
            diff = [i for i in range(len(key)) if key[i] != other[i]]
            return len(diff) == 2 or (key[diff[0]] in "aeiou" and other[diff[0]] in "aeiou")
        return True

    def written(self, key: str) -> str:
        """The spelling of a folded name: the trusted one, else the accented one, else titled."""
        return self.trusted.get(key) or self.spellings.get(key, key.title())

    def verdict(self, name: str, key: str) -> Removal | str:
        """The removal of a stripped name (`key`: its folded form), or the spelling it is kept
        in."""
        if not name or " " in name or any(c.isdigit() for c in name) or key in NOT_NAMES:
            return Removal(name, "several words" if " " in name else "not a name")
        if self.country != "MX" and _NAHUATL.search(key):
            return Removal(name, "Nahuatl")
        spelled = next(
            (
                n
                for n in (self.trusted.get(key), self.spellings.get(key), name)
                if n and not accent_problem(n)
            ),
            "",
        )
        if not spelled:
            return Removal(name, "accent")
        if key not in self.known:
            return self.unknown_problem(name, key) or spelled
        if key in self.frequency and key not in self.trusted:
            return self.rarer_problem(name, key) or spelled
        return spelled

    def unknown_problem(self, name: str, key: str) -> Removal | None:
        """A name no list knows: a common word, or a variant of a known name (None: neither)."""
        if (name.lower() in self.dictionary or key in self.dictionary) and key not in self.listed:
            return Removal(name, "common word")
        # a name that lost its accented last letter (`Jos` for `José`)
        cut = [
            k
            for k in self.by_length.get(len(key) + 1, ())
            if k.startswith(key) and self.written(k)[-1:] in _ACUTE
        ]
        close = (
            self.near(
                key, lambda a, b: spelling_variant(a, b, self.pairs) or self.frequent_edit(a, b)
            )
            or cut
        )
        if close:
            return Removal(name, f"variant of {self.written(close[0])}")
        return None

    def rarer_problem(self, name: str, key: str) -> Removal | None:
        """A surname of the frequency list only: a rarer spelling of a commoner one (None: it is
        not)."""
        frequency = self.frequency
        close = self.near(
            key,
            lambda a, b: (
                spelling_variant(a, b, frozenset()) and frequency.get(b, 0) > frequency[a]
            )  # an archaic first letter (`Ybanez`, `Ybarra`) whenever the modern is commoner
            or (
                (spelling_variant(a, b, RARE_PAIRS) or self.frequent_edit(a, b))
                and frequency.get(b, 0) >= RARER * frequency[a]
            ),
        )
        if close:
            return Removal(name, f"rarer spelling of {self.written(close[0])}")
        return None


def filter_names(
    names: Iterable[str],
    trusted: Mapping[str, str],
    frequency: Mapping[str, int],
    dictionary: frozenset[str],
    country: str,
    spellings: Mapping[str, str] | None = None,
    listed: frozenset[str] = frozenset(),
    pairs: frozenset = CONFUSABLE,
) -> tuple[list[str], list[Removal]]:
    """(kept, removed) of `names` (see the module). `trusted`: folded name -> its spelling in
    the lists this project trusts for this kind of name (Faker es_ES; for first names the
    gazetteer's, which has accents); `frequency`: folded surname -> its count (US Census
    2010), empty for first names; a name in either is a known name; `dictionary`: lower-case
    Spanish dictionary words; `spellings`: folded name -> a spelling with its accents for
    names `trusted` lacks; `listed`: folded names of every other list of this kind (a
    dictionary word that one of them holds is a name)."""
    checks = _NameChecks(trusted, frequency, dictionary, country, spellings or {}, listed, pairs)
    kept: dict[str, str] = {}
    removed: list[Removal] = []
    for name in names:
        name = name.strip()
        key = lookup_key(name)
        verdict = checks.verdict(name, key)
        if isinstance(verdict, Removal):
            removed.append(verdict)
        else:
            kept.setdefault(key, verdict)
    return sorted(kept.values(), key=lookup_key), removed
