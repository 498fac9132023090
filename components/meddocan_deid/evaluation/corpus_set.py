"""The written corpus: invented documents by many writers, gold written inline.

Layout: ``<root>/source/<writer>/<doctype>/<doctype>_<NN>.txt``, each file a document in the
``[[LABEL|surface]]`` markup of :mod:`.formats_set`. A writer's folder holds only that writer's
documents, so a split by writer is a split by folder. ``<root>/writers.tsv`` names each
writer's split (``train``, ``dev``); a writer missing there is an error, so that no document
trains by accident. Document ids are ``<writer>-<doctype>_<NN>``.

Only the sources are committed: the training converter parses them directly.

Run as a module for a writer's own check (no spaCy needed)::

    PYTHONPATH=components python3 -m meddocan_deid.evaluation.corpus_set check \
        assets/corpus/source/w01

Errors name the file, line and column, never the text.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from ..errors import MarkupError
from .formats_set import SourceDoc, read_sources

SPLITS = ("train", "dev")


def read_writer(folder: Path) -> list[SourceDoc]:
    """One writer's documents, ids prefixed with the writer's folder name."""
    folder = Path(folder)
    docs = read_sources(folder)
    for doc in docs:
        doc.doc_id = f"{folder.name}-{doc.doc_id}"
    return docs


def read_splits(root: Path) -> dict[str, str]:
    """writer -> split, from ``<root>/writers.tsv`` (columns: writer, split, ...)."""
    path = Path(root) / "writers.tsv"
    if not path.exists():
        raise MarkupError(f"{path}: missing (each writer's split is read from it)")
    splits: dict[str, str] = {}
    with open(path, encoding="utf-8", newline="") as fh:
        for lineno, row in enumerate(csv.DictReader(fh, delimiter="\t"), start=2):
            split = (row.get("split") or "").strip()
            if split not in SPLITS:
                raise MarkupError(f"{path}:{lineno}: split must be one of {', '.join(SPLITS)}")
            splits[row["writer"].strip()] = split
    return splits


def read_corpus(root: Path, splits: Iterable[str] = SPLITS) -> list[SourceDoc]:
    """Every document of the writers whose split is in `splits`, sorted by id."""
    root = Path(root)
    wanted = set(splits)
    known = read_splits(root)
    docs: list[SourceDoc] = []
    source = root / "source"
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        if folder.name not in known:
            raise MarkupError(f"{folder}: writer not listed in {root / 'writers.tsv'}")
        if known[folder.name] in wanted:
            docs.extend(read_writer(folder))
    return docs


def label_counts(docs: Iterable[SourceDoc]) -> Counter:
    return Counter(label for doc in docs for label, _s, _e in doc.entities)


def _check(folder: Path) -> int:
    try:
        docs = read_writer(folder)
    except MarkupError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    types = Counter(doc.doctype for doc in docs)
    labels = label_counts(docs)
    n = sum(labels.values())
    print(f"{len(docs)} documents, {n} mentions, {n / max(len(docs), 1):.1f} per document")
    for doctype, count in sorted(types.items()):
        print(f"  {doctype}\t{count}")
    for label, count in sorted(labels.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  {label}\t{count}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check one writer's folder of the written corpus.")
    parser.add_argument("command", choices=["check"])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    return _check(args.folder)


if __name__ == "__main__":
    sys.exit(main())
