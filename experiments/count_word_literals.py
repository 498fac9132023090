"""Count the Spanish words written as Python literals in the package (a repeatable count).

    python experiments/count_word_literals.py [PACKAGE_DIR] [--list]

Reads every `.py` file under PACKAGE_DIR (default: components/meddocan_deid) with `ast` and
finds the collection literals (set, tuple, list, frozenset({...}), dict keys and string
values; pairs of a tuple of pairs count with it) of at least MIN_ITEMS strings that are all
single words (letters, an optional inner or final `.`, `'` or `-`), and counts those with at
least MIN_ITEMS Spanish words making at least a quarter of them (month lists mix Spanish,
Catalan, Galician and Basque): Spanish word forms that are not English ones (spaCy's stop words, the
forms and lemmas of its lemma tables, from spacy-lookups-data) or words with a Spanish letter (á é í
ó ú ü ñ). A word of the word lists (`pipeline/data/es/`) counts as Spanish too. Docstrings and other
lone strings are not counted; nor are collections in capitals only (label names, Roman numerals) or
all capitalised (names). Prints per file the collections (line, variable, number of words) and the
totals: files, collections, string literals. `--list` also prints the collections' first words.
"""

import argparse
import ast
import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_ITEMS = 3
WORD = re.compile(r"^[^\W\d_]+(?:['.\-][^\W\d_]*)*\.?$")
SPANISH_LETTERS = set("áéíóúüñ")


def _lemma_table(lang: str) -> set:
    """The forms and lemmas of spaCy's lemma table of `lang` (spacy-lookups-data), or nothing."""
    try:
        import spacy_lookups_data
    except ImportError:
        return set()
    path = Path(spacy_lookups_data.__file__).parent / "data" / f"{lang}_lemma_lookup.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        table = json.load(f)
    return {w.lower() for pair in table.items() for w in pair}


def spanish_vocabulary() -> set:
    """Spanish word forms that are not English ones (spaCy's stop words and lemma tables),
    and the words of the package's Spanish word lists."""
    from spacy.lang.en.stop_words import STOP_WORDS as EN_STOP
    from spacy.lang.es.stop_words import STOP_WORDS as ES_STOP

    vocab = (
        ({w.lower() for w in ES_STOP} | _lemma_table("es"))
        - {w.lower() for w in EN_STOP}
        - _lemma_table("en")
    )
    data = ROOT / "components" / "meddocan_deid" / "pipeline" / "data" / "es"
    for path in sorted(data.glob("*.txt")):
        vocab.update(line.strip().lower() for line in path.read_text(encoding="utf-8").splitlines())
    for path in sorted(data.glob("*.json")):
        vocab.update(
            w.lower() for w in json.loads(path.read_text(encoding="utf-8")).get("words", {})
        )
    return vocab


def _flat(node: ast.AST) -> list[ast.AST]:
    """The items of a collection literal, those of nested tuples (pairs) included."""
    out = []
    for item in node.elts:
        out.extend(_flat(item) if isinstance(item, ast.Tuple) else [item])
    return out


def _strings(node: ast.AST) -> list[str] | None:
    """The strings of a collection literal, or None when it is not one of strings."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("frozenset", "set", "tuple")
        and len(node.args) == 1
    ):
        return None  # its argument literal is visited on its own
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        items = _flat(node)
    elif isinstance(node, ast.Dict):
        items = [k for k in node.keys if k is not None]
        if items and all(
            isinstance(v, ast.Constant) and isinstance(v.value, str) for v in node.values
        ):
            items = items + list(node.values)
    else:
        return None
    if len(items) < MIN_ITEMS or not all(
        isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items
    ):
        return None
    return [i.value for i in items]


def _target(tree: ast.AST, node: ast.AST) -> str:
    for parent in ast.walk(tree):
        if isinstance(parent, (ast.Assign, ast.AnnAssign)) and any(
            n is node for n in ast.walk(parent.value or parent)
        ):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            names = [t.id if isinstance(t, ast.Name) else ast.unparse(t) for t in targets]
            return ", ".join(names)
    return "?"


def word_collections(path: Path, vocab: set) -> Iterator[tuple[int, str, list[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    inner = {
        id(i)
        for n in ast.walk(tree)
        if isinstance(n, ast.Tuple)
        for i in n.elts
        if isinstance(i, ast.Tuple)
    }
    for node in ast.walk(tree):
        if id(node) in inner:  # a pair of a collection of pairs: counted with it
            continue
        strings = _strings(node)
        if strings is None or not all(WORD.match(s) for s in strings):
            continue
        if all(s.isupper() for s in strings) or all(s[:1].isupper() for s in strings):
            continue  # labels, Roman numerals; names (of files, of classes)
        spanish = sum(
            1 for s in strings if s.lower().rstrip(".") in vocab or SPANISH_LETTERS & set(s.lower())
        )
        if spanish >= MIN_ITEMS and 4 * spanish >= len(strings):
            yield node.lineno, _target(tree, node), strings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "package", nargs="?", type=Path, default=ROOT / "components" / "meddocan_deid"
    )
    parser.add_argument("--list", action="store_true", help="print each collection's first words")
    args = parser.parse_args()
    vocab = spanish_vocabulary()
    files = collections = literals = 0
    for path in sorted(args.package.rglob("*.py")):
        found = list(word_collections(path, vocab))
        if not found:
            continue
        files += 1
        print(f"{path.relative_to(args.package)}")
        for line, target, strings in found:
            collections += 1
            literals += len(strings)
            extra = (
                f"  {', '.join(strings[:6])}{', ...' if len(strings) > 6 else ''}"
                if args.list
                else ""
            )
            print(f"  {line:5d} {target}: {len(strings)}{extra}")
    print(f"total: {files} files, {collections} collections, {literals} string literals")


if __name__ == "__main__":
    main()
