"""Inter-annotator agreement on the written corpus: a second annotator marks up the plain
text of a sample of documents blind (never seeing the writer's gold); strict agreement per
label is the F1 of one annotation against the other (symmetric: P and R swap), over exact
(label, start, end) matches. `binary` is the same over spans whatever their label.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..brat import read_text
from ..errors import MarkupError
from .formats_set import SourceDoc, parse_markup


def sample_ids(docs: Sequence[SourceDoc], per_writer: int, seed: int) -> list[str]:
    """`per_writer` document ids of each writer, drawn with `seed`, sorted."""
    by_writer: dict[str, list[str]] = {}
    for doc in docs:
        by_writer.setdefault(doc.doc_id.split("-", 1)[0], []).append(doc.doc_id)
    rng = random.Random(seed)
    chosen = []
    for writer in sorted(by_writer):
        ids = sorted(by_writer[writer])
        chosen.extend(rng.sample(ids, min(per_writer, len(ids))))
    return sorted(chosen)


def read_annotations(folder: Path) -> dict[str, tuple[str, list]]:
    """doc id -> (plain text, entities) of every `<id>.txt` markup file in `folder`."""
    out = {}
    for path in sorted(Path(folder).glob("*.txt")):
        out[path.stem] = parse_markup(read_text(path), path)
    return out


def _f1(tp: int, a: int, b: int) -> float:
    return 2 * tp / (a + b) if a + b else 1.0


def agreement(gold: dict[str, SourceDoc], other: dict[str, tuple[str, list]]) -> dict[str, dict]:
    """Per label and overall: counts in each annotation, exact matches and F1; `binary` over
    spans. Raises MarkupError when a document's plain text differs between the two."""
    n_gold: Counter = Counter()
    n_other: Counter = Counter()
    matched: Counter = Counter()
    spans_gold = spans_other = spans_both = 0
    for doc_id, (text, entities) in sorted(other.items()):
        if doc_id not in gold:
            raise MarkupError(f"{doc_id}: no such document in the corpus")
        if text != gold[doc_id].text:
            raise MarkupError(f"{doc_id}: the annotated text differs from the document's text")
        a, b = set(gold[doc_id].entities), set(entities)
        n_gold.update(label for label, _s, _e in a)
        n_other.update(label for label, _s, _e in b)
        matched.update(label for label, _s, _e in a & b)
        sa, sb = {(s, e) for _l, s, e in a}, {(s, e) for _l, s, e in b}
        spans_gold, spans_other, spans_both = (
            spans_gold + len(sa),
            spans_other + len(sb),
            spans_both + len(sa & sb),
        )
    table = {
        label: {
            "first": n_gold[label],
            "second": n_other[label],
            "matched": matched[label],
            "f1": _f1(matched[label], n_gold[label], n_other[label]),
        }
        for label in sorted(set(n_gold) | set(n_other))
    }
    total = (sum(matched.values()), sum(n_gold.values()), sum(n_other.values()))
    table["overall"] = {
        "first": total[1],
        "second": total[2],
        "matched": total[0],
        "f1": _f1(*total),
    }
    table["binary"] = {
        "first": spans_gold,
        "second": spans_other,
        "matched": spans_both,
        "f1": _f1(spans_both, spans_gold, spans_other),
    }
    return table


def plain_copies(docs: Iterable[SourceDoc], ids: Sequence[str], folder: Path) -> int:
    """Write the plain text of the documents `ids` to `folder/<id>.txt` for the second annotator."""
    wanted = set(ids)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for doc in docs:
        if doc.doc_id in wanted:
            with open(folder / f"{doc.doc_id}.txt", "w", encoding="utf-8", newline="") as fh:
                fh.write(doc.text)
            n += 1
    return n


def check_markup(plain: Path, marked: Path) -> list[str]:
    """Problems of a second annotator's files: each `<id>.txt` in `marked` must parse and,
    without its markup, equal `plain/<id>.txt`; every plain file needs its marked copy."""
    problems = []
    for path in sorted(Path(plain).glob("*.txt")):
        other = Path(marked) / path.name
        if not other.exists():
            problems.append(f"{other}: missing")
            continue
        try:
            text, _ents = parse_markup(read_text(other), other)
        except MarkupError as err:
            problems.append(str(err))
            continue
        if text != read_text(path):
            at = next(
                (i for i, (a, b) in enumerate(zip(text, read_text(path))) if a != b),
                min(len(text), len(read_text(path))),
            )
            problems.append(
                f"{other}: the text without markup differs from {path} at character {at}"
            )
    return problems


if __name__ == "__main__":  # a second annotator's own check, no spaCy needed
    import sys

    found = check_markup(Path(sys.argv[1]), Path(sys.argv[2]))
    print("\n".join(found) or "ok: every file parses and matches its plain text")
    sys.exit(1 if found else 0)
