"""Names of patients, relatives and health staff: token by token, so that "García" maps
to the same surrogate in "Juan García López" and in "Sr. García".

A token that is a known first name gets a first name of the same gender (Faker es_ES
lists, gender from those lists, else from the ending); any other capitalised token gets a
surname (gazetteer surnames and Faker's); initials get the scope's letter for that initial;
particles (de, del, la, y...) and titles (Dr., Sra.) stay. The first letter of a name
surrogate follows the scope's letter permutation when a candidate exists, so "A. Ferrer"
and "Ana Ferrer" stay coherent. Case (UPPER/Title/lower) is kept.
"""
import re
from functools import lru_cache
from typing import Tuple

from ..gazetteer import Gazetteer, fold
from .common import Context, case_like, choose

PARTICLES = {"de", "del", "la", "las", "los", "el", "y", "i", "e", "da", "das", "do", "dos", "van", "von", "der", "di", "du", "le", "mac", "mc"}
TITLES = {"dr", "dra", "sr", "sra", "srta", "don", "dona", "prof", "lic", "d", "dña"}
WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=4)
def name_lists(gaz: Gazetteer):
    from faker.providers.person.es_ES import Provider

    male = tuple(sorted({n for n in Provider.first_names_male if " " not in n}))
    female = tuple(sorted({n for n in Provider.first_names_female if " " not in n}))
    male_f = frozenset(fold(n) for n in male)
    female_f = frozenset(fold(n) for n in female)
    surnames = {fold(n): n for n in gaz.get("surnames") if " " not in n}
    surnames.update({fold(n): n for n in Provider.last_names if " " not in n})  # Faker's spelling has accents
    first_f = male_f | female_f | frozenset(fold(n) for n in gaz.get("first_names"))
    # surrogate surnames that do not read as first names ("Jacinto" is in the surname list too)
    surnames_t = tuple(sorted(v for k, v in surnames.items() if k not in first_f))
    return male, female, male_f, female_f, first_f, surnames_t, frozenset(surnames)


def is_first_name(token: str, gaz: Gazetteer) -> bool:
    male, female, male_f, female_f, first_f, _, surname_f = name_lists(gaz)
    t = fold(token)
    if t in male_f or t in female_f:
        return True
    return t in first_f and t not in surname_f


def gender(token: str, gaz: Gazetteer) -> str:
    male, female, male_f, female_f, *_ = name_lists(gaz)
    t = fold(token)
    if t in female_f and t not in male_f:
        return "F"
    if t in male_f and t not in female_f:
        return "M"
    return "F" if t.endswith("a") else "M"  # in both lists (María) or in neither


def _name_token(ctx: Context, token: str) -> str:
    gaz = ctx.gaz
    male, female, *_rest = name_lists(gaz)
    surnames = _rest[3]
    if is_first_name(token, gaz):
        pool, kind = (female if gender(token, gaz) == "F" else male), "first_name"
    else:
        pool, kind = surnames, "surname"
    initial = fold(token)[:1].upper()
    wanted = ctx.letter_map().get(initial)

    def make(rng, attempt):
        if wanted and attempt < 12:
            pick = choose(rng, pool, lambda n: n[:1].upper() == wanted)
            if pick:
                return pick
        return choose(rng, pool)

    sur = ctx.draw(kind, token, make, check=ctx.acceptable_token)
    return case_like(token, sur)


def _initial(ctx: Context, letter: str) -> str:
    mapped = ctx.letter_map().get(fold(letter).upper()[:1], None)
    if mapped is None:
        return letter
    return mapped if letter.isupper() else mapped.lower()


def map_words(text: str, replace) -> str:
    """`text` with each word match `m` replaced by `replace(m)`; everything between words kept."""
    return WORD.sub(replace, text)


def name_surrogate(text: str, ctx: Context, keep_words=frozenset()) -> str:
    """Replace every name token of `text`; punctuation, spaces and particles stay."""
    def replace(m) -> str:
        word = m.group()
        low = fold(word)
        if low in PARTICLES and not word[:1].isupper() or low in keep_words:
            return word
        if low in TITLES and m.end() < len(text) and text[m.end()] == "." and len(word) > 1:
            return word
        if len(word) == 1 or (len(word) == 2 and word[1] in "ªº"):
            return _initial(ctx, word[0]) + word[1:]
        if word.islower() and low in PARTICLES:
            return word
        return _name_token(ctx, word)

    return map_words(text, replace)


def names(text: str, label: str, ctx: Context) -> str:
    return name_surrogate(text, ctx)


# Kinship words of FAMILIARES_SUJETO_ASISTENCIA: (masculine, feminine) singular pairs; a
# closed grammatical class (not PHI values), so it is written out here.
KIN_PAIRS = (
    ("padre", "madre"), ("hermano", "hermana"), ("hijo", "hija"), ("tío", "tía"),
    ("abuelo", "abuela"), ("primo", "prima"), ("sobrino", "sobrina"), ("nieto", "nieta"),
    ("esposo", "esposa"), ("cuñado", "cuñada"), ("suegro", "suegra"), ("novio", "novia"),
    ("bisabuelo", "bisabuela"), ("padrastro", "madrastra"), ("hermanastro", "hermanastra"),
    ("gemelo", "gemela"), ("mellizo", "melliza"), ("marido", "mujer"), ("yerno", "nuera"),
)


def _plural(word: str) -> str:
    return word + ("s" if word[-1] in "aeiouáéíóú" else "es")


def _kin_table():
    table = {}
    for masc, fem in KIN_PAIRS:
        for g, word in (("M", masc), ("F", fem)):
            table[fold(word)] = (g, "sg", word)
            table[fold(_plural(word))] = (g, "pl", _plural(word))
    return table


KIN = _kin_table()


def _kin_surrogate(ctx: Context, word: str) -> str:
    g, number, _ = KIN[fold(word)]
    pool = tuple(sorted(w for _k, (gg, nn, w) in KIN.items() if gg == g and nn == number and fold(w) != fold(word)
                        and w not in ("mujer", "mujeres")))

    def make(rng, attempt):
        # a kinship word that is not another PHI of the report, else any other one
        order = list(pool)
        rng.shuffle(order)
        return next((w for w in order if ctx.acceptable(w, word)), order[0] if order else None)

    return case_like(word, ctx.draw("kin", word, make, check=lambda c, o: fold(c) != fold(o)))


def relatives(text: str, label: str, ctx: Context) -> str:
    """FAMILIARES_SUJETO_ASISTENCIA: kinship words swapped for one of the same gender and
    number (unless keep_kinship), capitalised names as names, everything else kept."""
    def replace(m) -> str:
        word = m.group()
        if fold(word) in KIN:
            return word if ctx.options.keep_kinship else _kin_surrogate(ctx, word)
        if word[:1].isupper() and fold(word) not in PARTICLES and fold(word) not in TITLES:
            return name_surrogate(word, ctx)
        return word

    new = map_words(text, replace)
    if new == text and not ctx.options.keep_kinship:
        # no kinship word and no name we know (`pareja`, `cónyuge`): a kinship word
        last = fold(WORD.findall(text)[-1]) if WORD.findall(text) else ""
        g = "F" if last.endswith("a") else "M"
        pool = tuple(sorted(w for (gg, nn, w) in KIN.values() if gg == g and nn == "sg" and w not in ("mujer",)))
        new = case_like(text, ctx.draw("kin", text, lambda rng, a: choose(rng, pool)))
    return new
