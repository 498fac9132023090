"""Word lists, name labels and text folds: one home each, for the pipeline components and the
de-identification code.

Word lists are data files per language, shipped with the package
(`meddocan_deid/pipeline/data/<lang>/`): `<name>.txt` holds one entry a line, as written
(blank lines and lines that start with `# ` are skipped; `#` alone is an entry); `<name>.json`
holds words tagged with the uses they serve (`{"uses": {use: what it is for}, "words": {word:
[use, ...]}}`), for the lists that several components read with small differences (kinship
words, titles). The components take these as the defaults of their config settings, which
still accept a list. Reads files only; no spaCy object.
"""

import json
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

from .labels import PERSON_LABELS

DATA_DIR = Path(__file__).parent / "pipeline" / "data"

# the labels of a person's name (the patient, the staff, a relative): the label table's person
# column, the NOMBRE_ labels first (the order the components' saved configs hold)
NAME_LABELS = tuple(sorted(PERSON_LABELS, key=lambda label: not label.startswith("NOMBRE_")))


@cache
def _entries(name: str, lang: str) -> tuple[str, ...]:
    path = DATA_DIR / lang / f"{name}.txt"
    if not path.exists():
        raise FileNotFoundError(f"{path}: word list not found")
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line and not line.startswith("# "))


def words(name: str, lang: str = "es") -> list[str]:
    """The entries of the word list `<lang>/<name>.txt`, in file order."""
    return list(_entries(name, lang))


@cache
def _tagged(name: str, lang: str) -> dict:
    path = DATA_DIR / lang / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path}: word list not found")
    data = json.loads(path.read_text(encoding="utf-8"))
    unknown = {use for uses in data["words"].values() for use in uses} - set(data["uses"])
    if unknown:
        raise ValueError(f"{path}: undeclared use(s) {sorted(unknown)}")
    return data


def tagged_words(name: str, use: str, lang: str = "es") -> list[str]:
    """The words of `<lang>/<name>.json` tagged with `use`, in file order."""
    data = _tagged(name, lang)
    if use not in data["uses"]:
        raise KeyError(f"{lang}/{name}.json: no use {use!r} (declared: {', '.join(data['uses'])})")
    return [word for word, uses in data["words"].items() if use in uses]


def tag_uses(name: str, lang: str = "es") -> list[str]:
    """The uses that `<lang>/<name>.json` declares, in file order."""
    return list(_tagged(name, lang)["uses"])


def word_uses(name: str, lang: str = "es") -> dict:
    """word -> its uses, for every word of `<lang>/<name>.json` (file order)."""
    return {word: list(uses) for word, uses in _tagged(name, lang)["words"].items()}


def all_tagged_words(name: str, lang: str = "es") -> list[str]:
    """Every word of `<lang>/<name>.json`, whatever its uses, in file order."""
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
