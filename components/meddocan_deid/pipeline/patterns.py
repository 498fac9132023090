"""Pattern data and gazetteer readers for `[initialize]` blocks (registered functions).

Reads JSONL pattern files and the MEDDOCAN gazetteer folder; returns patterns for the
rulers (the callback that stores the gazetteer in the vocab is in deid/gazetteer.py). Never sees a
Doc. Errors name the file and line, never pattern contents.
"""

import json
import logging
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import srsly
from spacy.util import registry

from ..errors import PatternFileError  # noqa: F401  (re-exported)

logger = logging.getLogger("meddocan_deid")


def load_patterns(path: Path, required=("pattern",)) -> list[dict]:
    """The entries of a JSONL pattern file. An entry with `"also_upper": true` (a phrase)
    also counts written in capitals (`SERVICIO ANDALUZ DE SALUD`)."""
    path = Path(path)
    if not path.exists():
        raise PatternFileError(f"{path}: pattern file not found")
    patterns = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                entry = srsly.json_loads(line)
            except ValueError:
                raise PatternFileError(f"{path}:{lineno}: not valid JSON") from None
            if not isinstance(entry, dict):
                raise PatternFileError(f"{path}:{lineno}: expected a JSON object")
            missing = [k for k in required if k not in entry]
            if missing:
                raise PatternFileError(f"{path}:{lineno}: missing key(s) {missing}")
            patterns.append(entry)
            if entry.pop("also_upper", False):  # letterheads print names in capitals
                if not isinstance(entry["pattern"], str):
                    raise PatternFileError(
                        f"{path}:{lineno}: 'also_upper' needs a phrase (string) pattern"
                    )
                if entry["pattern"].upper() != entry["pattern"]:
                    patterns.append({**entry, "pattern": entry["pattern"].upper()})
    return patterns


@registry.misc("meddocan_deid.read_patterns.v1")
def read_patterns(path: Path) -> list[dict]:
    return load_patterns(path)


@registry.misc("meddocan_deid.read_identifier_patterns.v1")
def read_identifier_patterns(path: Path) -> list[dict]:
    """Identifier kinds (configs/patterns/identifiers.jsonl): a value `pattern`, or the
    `shapes` and `keyless_shapes` of a kind of a country (checked by the component)."""
    return load_patterns(path, required=("kind", "label"))


@registry.misc("meddocan_deid.read_code_shapes.v1")
def read_code_shapes(path: Path) -> list[dict]:
    """Code shapes, safe patterns and cue words (configs/patterns/code_shapes.jsonl)."""
    return load_patterns(path, required=("kind", "id"))


@registry.misc("meddocan_deid.read_field_keys.v1")
def read_field_keys(path: Path) -> list[dict]:
    return load_patterns(path, required=("label", "kind"))


@registry.misc("meddocan_deid.read_pattern_files.v1")
def read_pattern_files(paths: list[Path]) -> list[dict]:
    """The patterns of several JSONL files, in order (`phi_rules.jsonl`, then the word lists
    such as `institutions.jsonl`); errors name the file and line."""
    if isinstance(paths, (str, Path)):
        raise PatternFileError(f"{paths}: 'paths' must be a list of pattern files")
    return compact_token_patterns([entry for path in paths for entry in load_patterns(path)])


def _literal_values(token: dict) -> tuple[str, list[str]] | None:
    """(attribute, strings) when a token spec only compares one attribute with literal
    strings (`{"ORTH": "S.L."}`, `{"LOWER": {"IN": [...]}}`, with or without an `OP`)."""
    keys = [key for key in token if key != "OP"]
    if len(keys) != 1:
        return None
    attr, value = keys[0], token[keys[0]]
    if isinstance(value, str):
        return attr, [value]
    if (
        isinstance(value, dict)
        and list(value) == ["IN"]
        and all(isinstance(v, str) for v in value["IN"])
    ):
        return attr, list(value["IN"])
    return None


def compact_token_patterns(patterns: list[dict]) -> list[dict]:
    """The same patterns with fewer Matcher entries: token patterns that differ only in the
    literal strings of one token (same label, id, attribute and operator) become one pattern
    with an `IN` list. A span ruler finds the same spans (it deduplicates and sorts them),
    and the Matcher's time grows with the number of patterns times the number of tokens:
    the shipped rules go from 433 token patterns to 212, and `phi_rules` takes about 30%
    less time. Phrase patterns are kept as they are."""
    patterns = list(patterns)
    merged_any = True
    while merged_any:  # a merge at one position can make patterns equal elsewhere
        merged_any = False
        width = max(
            (len(p["pattern"]) for p in patterns if isinstance(p["pattern"], list)), default=0
        )
        for pos in range(width):
            patterns, merged = _merge_at(patterns, pos)
            merged_any = merged_any or merged
    return patterns


def _merge_at(patterns: list[dict], pos: int) -> tuple[list[dict], bool]:
    """Merge the token patterns equal but for the literal strings of token `pos`; the merged
    pattern takes the place of the first of its group."""
    # a pattern that merges with none, or the key of a group of patterns that merge
    order: list[dict | tuple] = []
    groups: defaultdict[tuple, list[tuple[dict, list]]] = defaultdict(list)
    for entry in patterns:
        tokens = entry["pattern"]
        literal = (
            _literal_values(tokens[pos]) if isinstance(tokens, list) and len(tokens) > pos else None
        )
        if literal is None:
            order.append(entry)
            continue
        attr, values = literal
        key = (
            json.dumps({k: v for k, v in entry.items() if k != "pattern"}, sort_keys=True),
            json.dumps(tokens[:pos]),
            json.dumps(tokens[pos + 1 :]),
            attr,
            tokens[pos].get("OP"),
        )
        if key not in groups:
            order.append(key)
        groups[key].append((entry, values))
    merged, result = False, []
    for item in order:
        if isinstance(item, dict):
            result.append(item)
            continue
        members = groups[item]
        if len(members) == 1:
            result.append(members[0][0])
            continue
        merged = True
        (first, _values), attr, op = members[0], item[3], item[4]
        token: dict[str, Any] = {
            attr: {"IN": list(dict.fromkeys(v for _entry, values in members for v in values))}
        }
        if op is not None:
            token["OP"] = op
        result.append(
            {**first, "pattern": [*first["pattern"][:pos], token, *first["pattern"][pos + 1 :]]}
        )
    return result, merged


def load_word_list(path: Path) -> list[str]:
    """One lower-cased word a line; blank lines and `#` comments skipped."""
    path = Path(path)
    if not path.exists():
        raise PatternFileError(f"{path}: word list not found")
    words = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        word = line.split("#", 1)[0].strip()
        if not word:
            continue
        if word != word.lower() or " " in word:
            raise PatternFileError(f"{path}:{lineno}: expected one lower-cased word")
        words.append(word)
    return words


@registry.misc("meddocan_deid.read_word_list.v1")
def read_word_list(path: Path) -> list[str]:
    return load_word_list(path)


def load_name_list(path: Path) -> list[str]:
    """One name a line, as written (`Cabezón de la Sal`); blank lines and `#` comments skipped."""
    path = Path(path)
    if not path.exists():
        raise PatternFileError(f"{path}: name list not found")
    names = (
        line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()
    )
    return [n for n in names if n]


@registry.misc("meddocan_deid.read_name_list.v1")
def read_name_list(path: Path) -> list[str]:
    return load_name_list(path)


@registry.misc("meddocan_deid.read_name_lists.v1")
def read_name_lists(paths: list[Path]) -> list[str]:
    """The names of several name lists, in order (Spain's towns, then those of the Americas)."""
    if isinstance(paths, (str, Path)):
        raise PatternFileError(f"{paths}: 'paths' must be a list of name lists")
    return [name for path in paths for name in load_name_list(path)]


@registry.misc("meddocan_deid.read_privacy_rules.v1")
def read_privacy_rules(path: Path) -> list[dict]:
    return load_patterns(path, required=("id", "source", "sections"))


# The task gazetteer's files, by the first word of their names: the span label the
# `gazetteer` span ruler gives their entries (NER features), and the kind under which the
# pipeline's vocab table keeps them for the surrogates (deid/gazetteer.py). One map for
# both readers, so that a new list is declared once; the names stay as they are because
# trained pipelines already carry them.
GAZETTEER_FILES = {
    "Apellidos": ("surname", "surnames"),
    "Direcciones": ("street", "streets"),
    "Hospitales": ("hospital", "hospitals"),
    "Municipios": ("town", "towns"),
    "Nombres": ("first_name", "first_names"),
    "Profesiones": ("profession", "professions"),
    "Territorio": ("region", "territories"),
}
GAZETTEER_LISTS = {
    prefix: label for prefix, (label, _kind) in GAZETTEER_FILES.items()
}  # file prefix -> span label
# `, 12`, `, S/N`, ` S/N`: no two blank runs side by side, and ` S/N` from a blank run's start
_STREET_NUMBER = re.compile(
    r"(?:,\s*(?:(?:\d+[A-Za-z]?|s/n)\s*)?|(?<!\s)\s+s/n\s*)$", re.IGNORECASE
)


def load_gazetteer_patterns(folder: Path) -> list[dict]:
    """Phrase patterns ({"label", "pattern"}) from the MEDDOCAN gazetteer folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise PatternFileError(f"{folder}: gazetteer folder not found")
    patterns = []
    seen = set()
    for name, label in GAZETTEER_LISTS.items():
        files = sorted(folder.glob(f"{name}*.txt"))
        if not files:
            raise PatternFileError(f"{folder}: no '{name}*.txt' list in the gazetteer folder")
        for path in files:
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except UnicodeDecodeError:
                raise PatternFileError(f"{path}: not UTF-8 text") from None
            for line in lines:
                entry = line.strip()
                while label == "street" and _STREET_NUMBER.search(entry):  # `X, s/n, 5`
                    entry = _STREET_NUMBER.sub("", entry).strip()
                if entry and (label, entry.lower()) not in seen:
                    seen.add((label, entry.lower()))
                    patterns.append({"label": label, "pattern": entry})
    return patterns


@registry.misc("meddocan_deid.read_gazetteer.v1")
def read_gazetteer(path: Path) -> list[dict]:
    return load_gazetteer_patterns(path)
