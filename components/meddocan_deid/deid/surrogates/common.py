"""What every surrogate module shares: the per-report context, keyed Faker, shapes and case."""

import random
import re
import string
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Literal, overload

import phonenumbers

from ...lexicon import lookup_key, tagged_words
from ..gazetteer import Gazetteer
from ..keys import Keyed
from ..options import DeidOptions
from .id_fields import digit_fields

MAX_ATTEMPTS = 24
DIGIT_RUN = 3  # no run of this many digits of an original survives in its surrogate
_YEAR = re.compile(r"(?<!\d)(?:1[89]\d\d|2[01]\d\d|[12]\.\d{3})(?![\d])")
_FAKER = None


def faker():
    """One Faker('es_ES') per process, re-seeded for every value (so order does not matter)."""
    global _FAKER
    if _FAKER is None:
        from faker import Faker

        _FAKER = Faker("es_ES")
    return _FAKER


def seeded_faker(seed: int):
    fk = faker()
    fk.seed_instance(seed)
    return fk


def random_shape(rng: random.Random, text: str, first_digits: str | None = None) -> str:
    """Digit for digit, letter for letter (case kept), everything else kept."""
    out = []
    seen_digit = False
    for ch in text:
        if ch.isdigit():
            if not seen_digit and first_digits:
                out.append(rng.choice(first_digits))
            else:
                out.append(rng.choice(string.digits))
            seen_digit = True
        elif ch.isalpha():
            letters = string.ascii_uppercase if ch.isupper() else string.ascii_lowercase
            out.append(rng.choice(letters))
        else:
            out.append(ch)
    return "".join(out)


_LOWER_WORDS = set(tagged_words("particles", "title_case"))
_ROMAN = re.compile(
    r"^(?=[ivxlcdm]+$)m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$", re.I
)


def smart_title(text: str) -> str:
    """'HOSPITAL DE LA SANTA CREU I SANT PAU' -> 'Hospital de la Santa Creu i Sant Pau'."""
    words = text.split(" ")
    out = []
    for i, word in enumerate(words):
        low = word.lower()
        if i > 0 and low in _LOWER_WORDS - {"san", "sant"}:
            out.append(low)
        elif _ROMAN.match(word) and i > 0:
            out.append(word.upper())
        elif (
            len(word) > 1
            and "." in word
            and word.replace(".", "").isupper()
            and len(word.replace(".", "")) <= 4
        ):
            out.append(word)  # S.L., C.S.
        else:
            out.append("-".join(p[:1].upper() + p[1:].lower() for p in word.split("-")))
    return " ".join(out)


def case_like(template: str, value: str) -> str:
    """Give `value` the case style of `template`: UPPER, lower or Title."""
    letters = [c for c in template if c.isalpha()]
    if not letters:
        return value
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return value.upper()
    if all(c.islower() for c in letters):
        return value.lower()
    if value.isupper() or value.islower():
        return smart_title(value.lower())
    return value


def bounded_find(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` and is not glued to letters or digits on either side."""
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        before = haystack[start - 1] if start else ""
        after = haystack[end] if end < len(haystack) else ""
        if not (before.isalnum() and needle[:1].isalnum()) and not (
            after.isalnum() and needle[-1:].isalnum()
        ):
            return True
        start = haystack.find(needle, start + 1)
    return False


def _grams(digits: str, n: int):
    return {digits[i : i + n] for i in range(len(digits) - n + 1)}


_PHONE_PREFIX = re.compile(r"^\s*\(?(?:\+|00)\s?\d{2,3}\)?")
_FIRST_GROUP = re.compile(r"^\s*\(?(\d{1,3})\)?[\s.\-]+")


@lru_cache(maxsize=4096)
def _without_country_code(text: str) -> str:
    """A phone number without its international prefix: `+34`, `0034`, or a first group that
    is the country code of the valid number it begins (`54 9 11 ...`: a span leaves the `+`
    out of `+54 9 11 ...`)."""
    if _PHONE_PREFIX.match(text):
        return _PHONE_PREFIX.sub("", text)
    m = _FIRST_GROUP.match(text)
    if m is None:
        return text
    try:
        number = phonenumbers.parse("+" + re.sub(r"\D", "", text), None)
    except phonenumbers.NumberParseException:
        return text
    if number.country_code == int(m.group(1)) and phonenumbers.is_valid_number(number):
        return text[m.end() :]
    return text


# draw kind -> places of the compact value (letters and digits) that its maker keeps on purpose:
# a kind's fixed parts (a Uruguayan RUT's department and `001` branch, a CUIT's type) are
# shared by every value of the kind and say nothing of the person (national_ids fills it)
KEPT_PLACES: dict[str, tuple[int, ...]] = {}


def _without_kept_places(text: str, places: tuple[int, ...]) -> str:
    chars = [c for c in text if c.isalnum()]
    return "".join(" " if i in places else c for i, c in enumerate(chars))


def shares_digit_run(surrogate: str, original: str, kind: str = "", n: int = DIGIT_RUN) -> bool:
    """True when `n` consecutive digits of `original` appear, consecutive, in `surrogate`.

    Digits are read with every other character dropped (`45.873.912-K` reads `45873912`),
    so a regrouped number is caught too. Two exceptions, by `kind`:
    "date": read run by run, and the years (`2001`, `2.001`) are left out: a date is shifted
    by the scope's offset (guidelines 3.2: every date of a document moves by the same
    amount, intervals kept), which may leave the year or its first digits as they were.
    "phone": an international prefix (`+34`, `0034`, a country code whose `+` the span left
    out) is left out: it is kept on purpose and is shared by every number of the country.
    An identifier that holds a birth date (a CURP, a person's RFC, a Nicaraguan cédula, a
    Salvadoran NIT, a Cuban carné: `id_fields.digit_fields`) is read field by field without
    its year, as a date: its surrogate holds the report's shifted birth date. A kind of
    KEPT_PLACES is read without the places its maker keeps."""
    if kind in KEPT_PLACES:
        places = KEPT_PLACES[kind]
        surrogate = _without_kept_places(surrogate, places)
        original = _without_kept_places(original, places)
        grams = set().union(*(_grams(r, n) for r in re.findall(r"\d+", original)))
        return any(g in run for g in grams for run in re.findall(r"\d+", surrogate))
    if kind == "phone":
        surrogate, original = _without_country_code(surrogate), _without_country_code(original)
    if kind == "date":
        orig_runs = re.findall(r"\d+", _YEAR.sub(" ", original))
        sur = " ".join(re.findall(r"\d+", _YEAR.sub(" ", surrogate)))
        grams = set().union(*(_grams(r, n) for r in orig_runs)) if orig_runs else set()
        return any(g in sur for g in grams)
    fields = digit_fields(original, kind)
    if fields is not None:
        grams = set().union(*(_grams(r, n) for r in fields)) if fields else set()
        new_fields = digit_fields(surrogate, kind)
        sur = " ".join(new_fields) if new_fields is not None else re.sub(r"[^0-9]", "", surrogate)
        return any(g in sur for g in grams)
    o = re.sub(r"[^0-9]", "", original)
    if len(o) < n:
        return False
    grams = _grams(o, n)
    s = re.sub(r"[^0-9]", "", surrogate)
    return any(s[i : i + n] in grams for i in range(len(s) - n + 1))


def scramble_digits(rng: random.Random, text: str) -> str:
    """`text` with each ASCII digit replaced by a random one (everything else kept)."""
    return re.sub(r"[0-9]", lambda m: rng.choice(string.digits), text)


class Context:
    """Per-report state of the surrogate operator: keyed randomness for the scope, the
    gazetteer, the date offset, and the PHI strings of the report that no surrogate may
    reproduce. Surrogates are cached per (kind, value): the same string, the same surrogate."""

    def __init__(
        self,
        keyed: Keyed,
        gazetteer: Gazetteer,
        options: DeidOptions,
        phi_strings: Iterable[str] = (),
        kept_strings: Iterable[str] = (),
        country: str = "ES",
    ):
        self.keyed = keyed
        # the report's country (ISO 3166 alpha-2, meddocan_deid.country): names, places,
        # streets and institutions of that country, identifiers and phones of its plan (the
        # identifier and phone generators also take None: each value tells its own)
        self.country = country
        self.gaz = gazetteer
        self.options = options
        kept = {lookup_key(s) for s in kept_strings}
        folded = {lookup_key(s) for s in phi_strings}
        self.forbidden_exact: frozenset[str] = frozenset(folded | kept)
        self.forbidden_long: tuple[str, ...] = tuple(
            sorted(s for s in folded - kept if len(s) >= 3)
        )
        tokens: set[str] = set()
        for s in folded:
            tokens.update(t for t in re.findall(r"[^\W\d_]+", s) if len(t) >= 2)
        self.forbidden_tokens: frozenset[str] = frozenset(tokens)
        self.cache: dict[tuple[str, str], str | None] = {}
        self.date_offset: int = 0
        self.field: str = ""  # the role the header field gives the value at hand (names.name_field)
        # the language of the passage of the value at hand (meddocan_deid.passage_language):
        # kinship words, numbers in words and Basque case suffixes are written in it
        self.lang: str = "es"
        self._letters: dict[str, str] | None = None
        # per-report state of a generator module (places: the province map of the report)
        self.state: dict[str, object] = {}

    # -- validity -------------------------------------------------------------------
    def acceptable(self, candidate: str, original: str) -> bool:
        c = lookup_key(candidate)
        if not candidate or c == lookup_key(original) or c in self.forbidden_exact:
            return False
        return not any(bounded_find(c, f) for f in self.forbidden_long)

    def acceptable_token(self, candidate: str, original: str) -> bool:
        c = lookup_key(candidate)
        return bool(candidate) and c != lookup_key(original) and c not in self.forbidden_tokens

    # -- keyed drawing --------------------------------------------------------------
    # with the shape fallback a draw always gives a value; without it, None when no
    # candidate is acceptable
    @overload
    def draw(
        self,
        kind: str,
        original: str,
        make: Callable[[random.Random, int], str | None],
        check: Callable[[str, str], bool] | None = None,
        key_value: str | None = None,
        shape_fallback: Literal[True] = True,
    ) -> str: ...

    @overload
    def draw(
        self,
        kind: str,
        original: str,
        make: Callable[[random.Random, int], str | None],
        check: Callable[[str, str], bool] | None = None,
        key_value: str | None = None,
        *,
        shape_fallback: bool,
    ) -> str | None: ...

    def draw(
        self,
        kind: str,
        original: str,
        make: Callable[[random.Random, int], str | None],
        check: Callable[[str, str], bool] | None = None,
        key_value: str | None = None,
        shape_fallback: bool = True,
    ) -> str | None:
        """The first acceptable candidate of make(rng, attempt) for attempts 0, 1, ...
        When none is: with `shape_fallback`, a random string of the original's shape (codes:
        identifiers, phone numbers); without it, None, so that the caller writes the tag
        (words are never replaced by random letters). Cached per (kind, value)."""
        value = lookup_key(original) if key_value is None else key_value
        if (kind, value) in self.cache:
            return self.cache[(kind, value)]
        base = check or self.acceptable

        def accept(c: str, o: str) -> bool:
            # every draw obeys the digit-run rule (see shares_digit_run)
            return base(c, o) and not shares_digit_run(c, o, kind)

        result = None
        for attempt in range(MAX_ATTEMPTS):
            rng = self.keyed.rng(kind, value, attempt)
            candidate = make(rng, attempt)
            if candidate is not None and accept(candidate, original):
                result = candidate
                break
        if result is None and shape_fallback:
            for attempt in range(MAX_ATTEMPTS, 2 * MAX_ATTEMPTS):
                candidate = random_shape(self.keyed.rng(kind, value, attempt), original)
                if accept(candidate, original):
                    result = candidate
                    break
            else:
                result = candidate  # nothing alphanumeric to change: kept as is
        self.cache[(kind, value)] = result
        return result

    def letter_map(self) -> dict[str, str]:
        """A keyed permutation of A-Z without fixed points, per scope: names starting with
        A all get surrogates starting with the same letter (guidelines 3.2), and an initial
        `A.` gets that letter too."""
        if self._letters is None:
            letters = list(string.ascii_uppercase)
            rng = self.keyed.rng("letters")
            shuffled = letters[:]
            rng.shuffle(shuffled)
            # rotate by one over the shuffled order: a derangement
            self._letters = {
                shuffled[i]: shuffled[(i + 1) % len(shuffled)] for i in range(len(shuffled))
            }
        return self._letters


def choose(rng: random.Random, items, predicate: Callable[[str], bool] | None = None):
    if predicate is None:
        return rng.choice(items) if len(items) else None
    pool = [x for x in items if predicate(x)]
    return rng.choice(pool) if pool else None
