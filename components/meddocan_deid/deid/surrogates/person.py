"""Ages, sex, professions and other personal details."""

import re
from functools import lru_cache
from typing import NamedTuple

from ...lexicon import lookup_key, tagged_words
from .common import Context, choose, random_shape
from .identifiers import identifiers, kind_of
from .institutions import organisations, parse, regional_bodies
from .tables import rows

SPELLED_90_PLUS = re.compile(r"\b(noventa|cien|ciento)\b", re.IGNORECASE)
NUMBER = re.compile(r"\d+")
NOT_YEARS = re.compile(r"\b(mes|meses|semana|semanas|d[ií]a|d[ií]as|hora|horas)\b", re.IGNORECASE)


def is_old(text: str, threshold: int) -> bool:
    if NOT_YEARS.search(text):
        return False
    numbers = [int(n) for n in NUMBER.findall(text)]
    if numbers:
        return max(numbers) >= threshold
    return threshold <= 90 and bool(SPELLED_90_PLUS.search(text))


def ages(text: str, label: str, ctx: Context):
    """Kept below the threshold (90), else the aggregate ("90 años o más").
    Returns None when the operator must fall back to the tag (keep_age=False)."""
    opts = ctx.options
    if not opts.keep_age:
        return None
    if is_old(text, opts.age_threshold):
        agg = opts.age_aggregate
        return agg[:1].upper() + agg[1:] if text[:1].isupper() else agg
    return text


def sexes(text: str, label: str, ctx: Context):
    return text if ctx.options.keep_sex else None


class Profession(NamedTuple):
    masculine: str
    feminine: str
    group: str  # ISCO-08 major group, "0" (armed forces) to "9"
    lang: str

    @property
    def invariable(self) -> bool:
        return lookup_key(self.masculine) == lookup_key(self.feminine)


_PREPOSITIONS = set(tagged_words("particles", "profession_plural"))


def plural(phrase: str) -> str:
    """Spanish plural of a profession: the words before the first preposition
    (`técnicos de laboratorio`, `guardias civiles`); capitals (`ATS`) and words in -s kept."""
    out, done = [], False
    for word in phrase.split(" "):
        done = done or lookup_key(word) in _PREPOSITIONS
        out.append(word if done else _plural_word(word))
    return " ".join(out)


_UNSTRESS = str.maketrans("áéíóú", "aeiou")


def _plural_word(word: str) -> str:
    if not word or word.isupper() or word[-1] in "sx":
        return word
    if word[-1] in "aeiouáéó":
        return word + "s"
    if word[-1] == "z":
        return word[:-1] + "ces"
    if word[-1] in "fk":  # chef
        return word + "s"
    if word[-1] == "n" and re.search(r"[áéíóú][^aeiouáéíóú]$", word):  # peón, capitán
        return word[:-2] + word[-2].translate(_UNSTRESS) + word[-1] + "es"
    return word + "es"


@lru_cache(maxsize=1)
def profession_table():
    """(entries, index): `data/professions.tsv`, and folded form -> [(entry, gender, number)]
    with gender M, F or N (the same word for both) and number sg or pl."""
    entries = tuple(
        Profession(r[0], r[1], r[2], (r[3] if len(r) > 3 and r[3] else "es"))
        for r in rows("professions.tsv")
    )
    index: dict[str, list[tuple[Profession, str, str]]] = {}
    for entry in entries:
        for form, gender in ((entry.masculine, "M"), (entry.feminine, "F")):
            gender = "N" if entry.invariable else gender
            for number, spelled in (("sg", form), ("pl", plural(form))):
                hits = index.setdefault(lookup_key(spelled), [])
                if (entry, gender, number) not in hits:
                    hits.append((entry, gender, number))
    return entries, index


def read_profession(text: str) -> tuple[Profession, str, str] | None:
    """(entry, gender, number) of a profession: the whole value, else its longest first
    words (`ingeniero informático de sistemas` -> `ingeniero informático`); None if unknown."""
    _entries, index = profession_table()
    tokens = lookup_key(text).split()
    for n in range(len(tokens), 0, -1):
        hits = index.get(" ".join(tokens[:n]))
        if hits:
            return hits[0]
    return None


def _case(template: str, form: str) -> str:
    """A profession in the original's case: capitals, a capital first letter, or as listed."""
    if template.isupper() and len(template) > 1:
        return form.upper()
    if template[:1].isupper():
        return form[:1].upper() + form[1:]
    return form


def professions(text: str, label: str, ctx: Context) -> str | None:
    """PROFESION: another profession of the same ISCO-08 major group, of the original's
    gender (an invariable word gets an invariable one) and number, in its language when the
    table has several of that group, else in Spanish; None (the tag) when the profession is
    not in the table."""
    found = read_profession(text)
    if found is None:
        return None
    entry, gender, number = found
    entries, _index = profession_table()
    same_group = [
        e
        for e in entries
        if e.group == entry.group
        and e is not entry
        and (gender != "N" or e.invariable)
        and not e.masculine.isupper()
    ]  # `ATS`: read, not written
    same_lang = [e for e in same_group if e.lang == entry.lang]
    pool = same_lang if len(same_lang) >= 2 else [e for e in same_group if e.lang == "es"]

    def make(rng, attempt):
        pick = choose(rng, pool)
        if pick is None:
            return None
        form = pick.feminine if gender == "F" else pick.masculine
        return _case(text, plural(form) if number == "pl" else form)

    return ctx.draw("profession", text, make, shape_fallback=False)


def others(text: str, label: str, ctx: Context) -> str | None:
    """Free-form PHI (OTROS_SUJETO_ASISTENCIA): a code (`AB-1234`, letters beside digits)
    gets random characters of the same shape; a bank account (IBAN, CCC: guideline P28.1) a
    valid one; an organisation of a kind read by `institutions` (an employer: `Talleres X
    S.L.`, `IES X`) one of that kind; other words get no surrogate (None: the tag), never
    random letters."""
    if kind_of(text, label) in ("iban", "ccc"):
        return identifiers(text, label, ctx)
    if not is_code(text):
        value = text.strip()
        if value and (parse(value, label) is not None or lookup_key(value) in regional_bodies()[0]):
            return organisations(text, label, ctx)
        return None
    return ctx.draw("other", text, lambda rng, attempt: random_shape(rng, text), key_value=text)


def is_code(text: str) -> bool:
    """A value with digits whose letters are short groups (`AB-1234`, `SAAD-14`, `3F`,
    `412-b`), not words (`Exp. 12`: a word of three lower-case letters)."""
    if not any(c.isdigit() for c in text):
        return False
    for token in re.findall(r"[^\W_]+", text):
        if any(c.isdigit() for c in token):
            letters = re.sub(r"\d", "", token)
            if len(letters) > 4:
                return False
            continue
        if len(token) > 4 or (len(token) >= 3 and any(c.islower() for c in token)):
            return False
    return True
