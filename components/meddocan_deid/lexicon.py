"""Word lists, name labels and text folds: one home each, for the pipeline components and the
de-identification code.

Word lists are data files per language, shipped with the package
(`meddocan_deid/pipeline/data/<lang>/`, `LANGUAGES`: Spanish, Catalan, Galician, Basque): a
list read without a language is the union of every language's file of that name, Spanish
first (the components read Catalan, Galician and Basque passages with the Spanish ones); one
language, or several, may be asked for. `<name>.txt` holds one entry a line, as written
(blank lines and lines that start with `# ` are skipped; `#` alone is an entry); `<name>.json`
holds words tagged with the uses they serve (`{"uses": {use: what it is for}, "words": {word:
[use, ...]}}`), for the lists that several components read with small differences (kinship
words, titles). The components take these as the defaults of their config settings, which
still accept a list. Reads files only; no spaCy object.
"""

import json
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path

from .labels import PERSON_LABELS

DATA_DIR = Path(__file__).parent / "pipeline" / "data"

# the labels of a person's name (the patient, the staff, a relative): the label table's person
# column, the NOMBRE_ labels first (the order the components' saved configs hold)
NAME_LABELS = tuple(sorted(PERSON_LABELS, key=lambda label: not label.startswith("NOMBRE_")))


# The languages of the word lists: Spanish and Spain's co-official languages. A list read
# without a language is the union of every language's file of that name, Spanish first.
LANGUAGES = ("es", "ca", "gl", "eu")


def _languages(name: str, suffix: str, lang: str | Iterable[str] | None) -> tuple[str, ...]:
    """The languages to read `<lang>/<name><suffix>` in: the one asked for (its file must
    exist), or, for None or several, those that have the file (at least one must)."""
    if isinstance(lang, str):
        if lang not in LANGUAGES:
            raise ValueError(f"{name}{suffix}: unknown language {lang!r} (one of {LANGUAGES})")
        return (lang,)
    asked = LANGUAGES if lang is None else tuple(lang)
    unknown = [code for code in asked if code not in LANGUAGES]
    if unknown:
        raise ValueError(f"{name}{suffix}: unknown language(s) {unknown} (one of {LANGUAGES})")
    found = tuple(code for code in asked if (DATA_DIR / code / f"{name}{suffix}").exists())
    if not found:
        raise FileNotFoundError(
            f"{DATA_DIR}/<{'|'.join(asked)}>/{name}{suffix}: word list not found"
        )
    return found


@cache
def _entries(name: str, lang: str) -> tuple[str, ...]:
    path = DATA_DIR / lang / f"{name}.txt"
    if not path.exists():
        raise FileNotFoundError(f"{path}: word list not found")
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line and not line.startswith("# "))


def _union(lists: Iterable[Iterable[str]]) -> list[str]:
    return list(dict.fromkeys(entry for entries in lists for entry in entries))


def words(name: str, lang: str | Iterable[str] | None = None) -> list[str]:
    """The entries of the word list `<lang>/<name>.txt`, in file order; without a language
    (or with several), the union of the languages' lists, Spanish first, each entry once."""
    return _union(_entries(name, code) for code in _languages(name, ".txt", lang))


def words_by_language(name: str) -> dict[str, list[str]]:
    """language -> the entries of its `<lang>/<name>.txt`, for the languages that have one (a
    list whose line numbers mean something: `months.txt`, January first)."""
    return {code: list(_entries(name, code)) for code in _languages(name, ".txt", None)}


@cache
def _tagged(name: str, lang: str) -> dict:
    path = DATA_DIR / lang / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path}: word list not found")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict) or not {"uses", "words"} <= set(data):
        raise ValueError(f'{path}: expected an object with "uses" and "words"')
    unknown = {use for uses in data["words"].values() for use in uses} - set(data["uses"])
    if unknown:
        raise ValueError(f"{path}: undeclared use(s) {sorted(unknown)}")
    return data


def tagged_words(name: str, use: str, lang: str | Iterable[str] | None = None) -> list[str]:
    """The words of `<lang>/<name>.json` tagged with `use`, in file order; without a language
    (or with several), the union of the languages' words, Spanish first."""
    files = [(code, _tagged(name, code)) for code in _languages(name, ".json", lang)]
    if not any(use in data["uses"] for _code, data in files):
        declared = sorted({u for _code, data in files for u in data["uses"]})
        raise KeyError(f"{name}.json: no use {use!r} (declared: {', '.join(declared)})")
    return _union(
        [word for word, uses in data["words"].items() if use in uses] for _code, data in files
    )


def tag_uses(name: str, lang: str | Iterable[str] | None = None) -> list[str]:
    """The uses that `<lang>/<name>.json` declares, in file order; without a language (or with
    several), the union of the languages' uses, Spanish first."""
    return _union(_tagged(name, code)["uses"] for code in _languages(name, ".json", lang))


def word_uses(name: str, lang: str | Iterable[str] | None = None) -> dict:
    """word -> its uses, for every word of `<lang>/<name>.json` (file order); without a
    language (or with several), of every language's file, Spanish first (a word in two files
    has the uses of both)."""
    out: dict[str, list[str]] = {}
    for code in _languages(name, ".json", lang):
        for word, uses in _tagged(name, code)["words"].items():
            out[word] = list(dict.fromkeys(out.get(word, []) + list(uses)))
    return out


def all_tagged_words(name: str, lang: str | Iterable[str] | None = None) -> list[str]:
    """Every word of `<lang>/<name>.json`, whatever its uses, in file order (the union of the
    languages' files without a language)."""
    return list(word_uses(name, lang))


# Titles before a name (`Dr.`, `Dña.`), which the guidelines leave outside the name: the
# default of the `titles` setting of `meddocan_rule_entities` and `meddocan_entity_edges`
TITLES = tagged_words("titles", "name_edge")


# --- text folds: three, because they differ -----------------------------------------------
# `lower_without_accents` and `casefold_per_char` keep one character for one (offsets carry
# over); `lookup_key` may change the length. The first removes only canonical accents
# (`ª`, `º` stay, which the field keys' `Nº` and `Dª` rely on); the other two also fold
# compatibility forms (`ª` -> `a`) and case-fold (`ß` -> `ss` in `lookup_key` only).


def lower_without_accents(text: str) -> str:
    """Lower case without (canonical) accents, one character for one, so offsets carry over:
    the field keys and values are matched on it (pipeline/fields.py)."""
    out = []
    for ch in text:
        low = ch.lower()
        base = unicodedata.normalize("NFD", low)[0] if low else ch
        out.append(base if len(low) == 1 else ch)
    return "".join(out)


@lru_cache(maxsize=4096)
def _casefold_char(ch: str) -> str:
    folded = "".join(
        c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)
    ).casefold()
    if len(folded) == 1:
        return folded
    low = ch.lower()
    return low if len(low) == 1 else ch


class _FoldTable(dict):
    # str.translate looks each character up in C; a character seen for the first time is folded once
    def __missing__(self, code: int) -> str:
        self[code] = folded = _casefold_char(chr(code))
        return folded


_FOLD_TABLE = _FoldTable()


def casefold_per_char(text: str) -> str:
    """Case- and accent-folded (compatibility forms too: `ª` is `a`) copy of `text` with exactly
    one character per character (a character that would fold to several stays lower-cased)."""
    return text.translate(_FOLD_TABLE)


def lookup_key(text: str) -> str:
    """Case- and accent-insensitive form for set lookups; its length may differ from the text's
    (`ß` is `ss`)."""
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))
