"""Names of patients, relatives and health staff: token by token, so that "García" maps
to the same surrogate in "Juan García López" and in "Sr. García".

Each name token keeps its role: a given name gets a given name of the same gender (Faker
es_ES lists, gender from those lists, else from the ending), a surname a surname (gazetteer
surnames and Faker's). The role comes from the field the name fills (the value of
`Nombre:` is given names, of `Apellidos:` surnames), else from the position in a full name
(the first token is a given name, two of four or more; `García López` alone reads as
surnames, and so does a single word after a title, `Dr. Martín`), else, for a single
word, from the lists (a known first name is a given name); initials get the scope's letter for that
initial; particles (de, del, la, y...) and titles (Dr., Sra.) stay. The first letter of a name
surrogate follows the scope's letter permutation when a candidate exists, so "A. Ferrer"
and "Ana Ferrer" stay coherent. Case (UPPER/Title/lower) is kept.
"""

import re
from functools import lru_cache

from ...basque_suffixes import inflect, readings
from ...lexicon import lookup_key, tagged_words, words, words_by_language
from ..gazetteer import Gazetteer
from .common import Context, case_like, choose
from .tables import rows

PARTICLES = set(tagged_words("particles", "name_surrogate"))
TITLES = set(words("name_surrogate_titles"))
WORD = re.compile(r"[^\W\d_]+")


# name lists per country (`data/names.tsv`, written by experiments/name_lists.py after the checks
# of name_filter.py); a country without its own lists draws from the Latin American pool
POOL = "LATAM"


@lru_cache(maxsize=1)
def _listed() -> dict[tuple[str, str], tuple[str, ...]]:
    lists: dict[tuple[str, str], list[str]] = {}
    for country, kind, name in rows("names.tsv"):
        lists.setdefault((country, kind), []).append(name)
    return {k: tuple(v) for k, v in lists.items()}


@lru_cache(maxsize=1)
def _gazetteer_checks() -> tuple[frozenset[str], dict[str, str]]:
    """The task gazetteer's surnames the checks remove (folded) and respell (folded -> new)."""
    removed, respelled = set(), {}
    for _kind, name, action, detail in rows("name_checks.tsv"):
        if action == "remove":
            removed.add(lookup_key(name))
        else:
            respelled[lookup_key(name)] = detail
    return frozenset(removed), respelled


def country_lists(country: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(male, female, surnames) of `country`'s list, else of the Latin American pool."""
    listed = _listed()
    own = country if (country, "surname") in listed else POOL
    return (
        listed.get((own, "male"), ()),
        listed.get((own, "female"), ()),
        listed.get((own, "surname"), ()),
    )


@lru_cache(maxsize=16)
def name_lists(gaz: Gazetteer, country: str = "ES"):
    """(male, female, male_f, female_f, first_f, surnames, surname_f): the given names and
    surnames a surrogate of `country` is drawn from, and the folded names that read as given
    names (Spain's and the country's) and as surnames. Spain's surnames are the gazetteer's
    less those the checks remove (in their checked spelling) and Faker es_ES's."""
    male, female, own_surnames = country_lists(country)
    es_male, es_female, _es = country_lists("ES")
    male_f = frozenset(lookup_key(n) for n in es_male + male)
    female_f = frozenset(lookup_key(n) for n in es_female + female)
    surnames = {lookup_key(n): n for n in own_surnames}
    known_surnames = {lookup_key(n) for n in gaz.get("surnames")} | set(surnames)
    if country == "ES":
        removed, respelled = _gazetteer_checks()
        for n in gaz.get("surnames"):
            key = lookup_key(n)
            if " " not in n and key not in removed:
                surnames.setdefault(key, respelled.get(key, n))
    first_f = male_f | female_f | frozenset(lookup_key(n) for n in gaz.get("first_names"))
    # surrogate surnames that do not read as first names ("Jacinto" is in the surname list too)
    surnames_t = tuple(sorted(v for k, v in surnames.items() if k not in first_f))
    return male, female, male_f, female_f, first_f, surnames_t, frozenset(known_surnames)


def is_first_name(token: str, gaz: Gazetteer, country: str = "ES") -> bool:
    male, female, male_f, female_f, first_f, _, surname_f = name_lists(gaz, country)
    t = lookup_key(token)
    if t in male_f or t in female_f:
        return True
    return t in first_f and t not in surname_f


def gender(token: str, gaz: Gazetteer, country: str = "ES") -> str:
    male, female, male_f, female_f, *_ = name_lists(gaz, country)
    t = lookup_key(token)
    if t in female_f and t not in male_f:
        return "F"
    if t in male_f and t not in female_f:
        return "M"
    return "F" if t.endswith("a") else "M"  # in both lists (María) or in neither


GIVEN, SURNAME = "given", "surname"


def _field_keys(use: str) -> str:
    keys = sorted(tagged_words("name_field_keys", use), key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, k.split())) for k in keys)


# the header keys of a name, in every language (`Nombre:`, `Cognoms:`, `Izena:`)
_FIELD = re.compile(
    rf"(?i)(?<!\w)(?:(?P<full>{_field_keys('full')})|(?P<surname>{_field_keys('surname')})"
    rf"|(?P<given>{_field_keys('given')}))\s*(?::\s*)?$"
)


def name_field(text: str, start: int) -> str:
    """The role the header field before `start` (on its line) gives a name: GIVEN after
    `Nombre:` (`Nom:`, `Nome:`, `Izena:`), SURNAME after `Apellidos:` (`Cognoms:`,
    `Apelidos:`, `Abizenak:`), "" otherwise (`Nombre y apellidos:` too)."""
    line = text[text.rfind("\n", 0, start) + 1 : start]
    m = _FIELD.search(line[-40:])
    if m is None or m.group("full"):
        return ""
    return SURNAME if m.group("surname") else GIVEN


def token_roles(
    words, gaz: Gazetteer, field: str = "", after_title: bool = False, country: str = "ES"
):
    """The role (GIVEN or SURNAME) of each full name word of one name, in order."""
    n = len(words)
    *_lists, surname_f = name_lists(gaz, country)
    if field == SURNAME:
        return [SURNAME] * n
    if field == GIVEN:  # given names, up to a word that can only be a surname (`Nombre: Ana Ruiz`)
        roles, role = [], GIVEN
        for i, w in enumerate(words):
            if i and lookup_key(w) in surname_f and not is_first_name(w, gaz, country):
                role = SURNAME
            roles.append(role)
        return roles
    if n == 0:
        return []
    if n == 1:
        return [SURNAME if after_title or not is_first_name(words[0], gaz, country) else GIVEN]
    first = lookup_key(words[0])
    if first in surname_f and not is_first_name(words[0], gaz, country):
        return [SURNAME] * n  # `García López`: surnames only
    given = 1 if n <= 3 else n - 2
    if n == 3 and is_first_name(words[1], gaz, country) and lookup_key(words[1]) not in surname_f:
        given = 2  # `Ana María Ruiz`
    return [GIVEN] * given + [SURNAME] * (n - given)


def _name_token(ctx: Context, token: str, role: str = "") -> str | None:
    gaz = ctx.gaz
    male, female, *_rest = name_lists(gaz, ctx.country)
    surnames = _rest[3]
    if role == GIVEN or (not role and is_first_name(token, gaz, ctx.country)):
        pool, kind = (female if gender(token, gaz, ctx.country) == "F" else male), "first_name"
    else:
        pool, kind = surnames, "surname"
    initial = lookup_key(token)[:1].upper()
    wanted = ctx.letter_map().get(initial)

    def make(rng, attempt):
        if wanted and attempt < 12:
            pick = choose(rng, pool, lambda n: n[:1].upper() == wanted)
            if pick:
                return pick
        return choose(rng, pool)

    sur = ctx.draw(kind, token, make, check=ctx.acceptable_token, shape_fallback=False)
    return None if sur is None else case_like(token, sur)


def _initial(ctx: Context, letter: str) -> str:
    mapped = ctx.letter_map().get(lookup_key(letter).upper()[:1], None)
    if mapped is None:
        return letter
    return mapped if letter.isupper() else mapped.lower()


def map_words(text: str, replace) -> str:
    """`text` with each word match `m` replaced by `replace(m)`; everything between words kept."""
    return WORD.sub(replace, text)


def name_surrogate(text: str, ctx: Context, keep_words=frozenset(), field: str = "") -> str | None:
    """Replace every name token of `text`; punctuation, spaces and particles stay. `field`:
    the role the text's field gives it (see `name_field`). None when a token has no
    acceptable surrogate (the tag, never random letters)."""

    def kind_of(m) -> str:  # per word: "keep", "title", "initial" or "name"
        word = m.group()
        low = lookup_key(word)
        if low in PARTICLES and not word[:1].isupper() or low in keep_words:
            return "keep"
        if low in TITLES and m.end() < len(text) and text[m.end()] == "." and len(word) > 1:
            return "title"
        if len(word) == 1 or (len(word) == 2 and word[1] in "ªº"):
            return "initial"
        if word.islower() and low in PARTICLES:
            return "keep"
        return "name"

    matches = list(WORD.finditer(text))
    kinds = [kind_of(m) for m in matches]
    name_words = [m.group() for m, k in zip(matches, kinds) if k == "name"]
    roles = iter(
        token_roles(name_words, ctx.gaz, field, after_title="title" in kinds, country=ctx.country)
    )
    out, pos = [], 0
    for m, k in zip(matches, kinds):
        out.append(text[pos : m.start()])
        word = m.group()
        if k in ("keep", "title"):
            out.append(word)
        elif k == "initial":
            out.append(_initial(ctx, word[0]) + word[1:])
        else:
            new = _name_token(ctx, word, next(roles))
            if new is None:
                return None
            out.append(new)
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def names(text: str, label: str, ctx: Context) -> str | None:
    """A name's surrogate; None (the tag) when it has no name word to replace (`Dr.` alone),
    so that no caller falls back to random letters."""
    new = name_surrogate(text, ctx, field=getattr(ctx, "field", ""))
    return None if new == text and WORD.search(text) else new


# Kinship words of FAMILIARES_SUJETO_ASISTENCIA, per language: (masculine, feminine) singular
# pairs, with their plurals where the list writes them (Catalan, Galician, Basque), else made
# the Spanish way (a word list)
KIN_PAIRS = tuple(tuple(line.split()[:2]) for line in words("kinship_pairs", "es"))
# words for a man or a woman, which a kinship word of the same gender never becomes (`mujer`,
# `dona`, `muller`: wife, but read as woman)
_PERSON_WORDS = frozenset(lookup_key(w) for w in words("age_person_words"))


def _plural(word: str) -> str:
    return word + ("s" if word[-1] in "aeiouáéíóú" else "es")


_NOT_DRAWN: set[str] = set()  # a word for a man or a woman and its plural: never drawn


def _kin_table(lang: str) -> dict[str, tuple[str, str, str]]:
    """folded word -> (gender, number, word) of `lang`'s kinship pairs."""
    table: dict[str, tuple[str, str, str]] = {}
    for line in words("kinship_pairs", lang):
        parts = line.split()
        masc, fem = parts[:2]
        plurals = parts[2:4] if len(parts) >= 4 else [_plural(masc), _plural(fem)]
        for g, word, many in (("M", masc, plurals[0]), ("F", fem, plurals[1])):
            table.setdefault(lookup_key(word), (g, "sg", word))
            table.setdefault(lookup_key(many), (g, "pl", many))
            if lookup_key(word) in _PERSON_WORDS:
                _NOT_DRAWN.update((lookup_key(word), lookup_key(many)))
    return table


KIN_BY_LANG = {lang: _kin_table(lang) for lang in words_by_language("kinship_pairs")}
KIN = KIN_BY_LANG["es"]


def _kin_entry(word: str, lang: str) -> tuple[str, tuple[str, str, str], str] | None:
    """(language, (gender, number, word), Basque case or "") of a kinship word: in the passage's
    language first, then Spanish, then the others; a Basque one also with a case suffix
    (`senarrarekin`: `senarra`, comitative)."""
    key = lookup_key(word)
    order = [lang, "es"] + [other for other in KIN_BY_LANG if other not in (lang, "es")]
    for code in dict.fromkeys(o for o in order if o in KIN_BY_LANG):
        if key in KIN_BY_LANG[code]:
            return code, KIN_BY_LANG[code][key], ""
    for stem, case in readings(word, ("any", "person")):
        entry = KIN_BY_LANG.get("eu", {}).get(lookup_key(stem))
        if entry is not None:
            return "eu", entry, case
    return None


def _kin_surrogate(ctx: Context, word: str) -> str:
    entry = _kin_entry(word, getattr(ctx, "lang", "es"))
    if entry is None:
        raise KeyError(f"{word!r} is no kinship word")
    lang, (g, number, _), case = entry
    table = KIN_BY_LANG[lang]
    pool = tuple(
        sorted(
            w
            for _k, (gg, nn, w) in table.items()
            if gg == g
            and nn == number
            and lookup_key(w) != lookup_key(word)
            and lookup_key(w) not in _NOT_DRAWN
        )
    )
    if case:
        pool = tuple(
            inflect(w, case) for w in pool if lookup_key(inflect(w, case)) != lookup_key(word)
        )

    def make(rng, attempt):
        # a kinship word that is not another PHI of the report, else any other one
        order = list(pool)
        rng.shuffle(order)
        return next((w for w in order if ctx.acceptable(w, word)), order[0] if order else None)

    return case_like(
        word, ctx.draw("kin", word, make, check=lambda c, o: lookup_key(c) != lookup_key(o))
    )


# words that stand for a relative without naming one, and the words around them in a span
# (`su pareja`, `la abuela materna`): kept with the kinship words
RELATIVE_WORDS = set(words("relative_words"))
FUNCTION_WORDS = set(words("kinship_function_words"))


def is_kin_word(word: str) -> bool:
    key = lookup_key(word)
    return _kin_entry(word, "es") is not None or key in RELATIVE_WORDS or key in FUNCTION_WORDS


def kinship_kept(text: str) -> bool:
    """A relative's value that `keep_kinship` leaves as it is: kinship words only (`madre`,
    `su pareja`, `abuela materna`), no digit and no other word. Any other word may be a
    name, whatever its case (`su hija carmen` in a note typed in lower case)."""
    words = WORD.findall(text)
    # a capital after the first word is a surname that reads as a kinship
    # word (`Pareja Mayor`, `la Nieto`)
    return (
        bool(words)
        and not any(c.isdigit() for c in text)
        and all(is_kin_word(w) for w in words)
        and not any(w[:1].isupper() for w in words[1:])
    )


def relatives(text: str, label: str, ctx: Context) -> str | None:
    """FAMILIARES_SUJETO_ASISTENCIA: kinship words swapped for one of the same gender and
    number (unless keep_kinship), other kinship and function words kept, every other word
    as a name, whatever its case (lower-case notes write names in lower case)."""

    def replace(m) -> str:
        word = m.group()
        if _kin_entry(word, getattr(ctx, "lang", "es")) is not None:
            return word if ctx.options.keep_kinship else _kin_surrogate(ctx, word)
        if is_kin_word(word) or lookup_key(word) in PARTICLES or lookup_key(word) in TITLES:
            return word
        name = name_surrogate(word, ctx)
        if name is None:
            unreplaced.append(word)
            return word
        return name

    unreplaced: list[str] = []  # a name with no acceptable surrogate: the value gets the tag
    new = map_words(text, replace)
    if unreplaced:
        return None
    if new == text and ctx.options.keep_kinship and kinship_kept(text):
        return new  # `pareja`, `cónyuge`: a word for a relative, kept as kinship words are
    if new == text and not ctx.options.keep_kinship:
        # no kinship word and no name we know (`pareja`, `cónyuge`): a kinship word
        last = lookup_key(WORD.findall(text)[-1]) if WORD.findall(text) else ""
        g = "F" if last.endswith("a") else "M"
        table = KIN_BY_LANG.get(getattr(ctx, "lang", "es"), KIN)
        pool = tuple(
            sorted(
                w
                for (gg, nn, w) in table.values()
                if gg == g and nn == "sg" and lookup_key(w) not in _NOT_DRAWN
            )
        )
        new = case_like(text, ctx.draw("kin", text, lambda rng, a: choose(rng, pool)))
    if new == text and WORD.search(text):
        # a title alone (`dona`, `Sr.`): nothing to replace, the tag (never random letters)
        return None
    return new
