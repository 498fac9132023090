"""The formats evaluation set: invented reports whose gold is written inline.

A source file is the report text verbatim, except that each PHI mention is written
``[[LABEL|surface text]]`` (LABEL one of the 29 MEDDOCAN labels). Mentions do not nest,
stay on one line, and their surface holds no ``|``, ``[[``, ``]]`` or tab and neither
starts nor ends with whitespace. Sources lie in ``<source>/<doctype>/<doctype>_<NN>.txt``;
the built set is ``<out>/<doctype>_<NN>.txt`` (the text without markup) and ``.ann``
(BRAT, character offsets in the ``.txt``).

Errors name the file, line and column, never the report text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import LABELS
from ..brat import Annotation, format_ann, read_text, write_brat
from ..errors import MarkupError  # noqa: F401  (re-exported)

OPEN, CLOSE, SEP = "[[", "]]", "|"
# from a name's start only (fullmatch): linear when scanned
SOURCE_NAME = re.compile(r"(?<![a-z0-9_])(?P<doctype>[a-z][a-z0-9_]*)_(?P<num>\d+)\.txt")


@dataclass
class SourceDoc:
    doc_id: str
    doctype: str
    text: str
    entities: list[Annotation]


def parse_markup(markup: str, path: str | Path = "<string>") -> tuple[str, list[Annotation]]:
    """Split marked-up text into the plain text and its (label, start, end) spans."""
    out: list[str] = []
    entities: list[Annotation] = []
    pos = 0  # length of the plain text so far
    for lineno, line in enumerate(markup.splitlines(keepends=True), start=1):
        i = 0
        while True:
            opened = line.find(OPEN, i)
            closed = line.find(CLOSE, i)
            if closed != -1 and (opened == -1 or closed < opened):
                raise MarkupError(f"{path}:{lineno}:{closed + 1}: ']]' without a '[['")
            if opened == -1:
                out.append(line[i:])
                pos += len(line) - i
                break
            where = f"{path}:{lineno}:{opened + 1}"
            end = line.find(CLOSE, opened + len(OPEN))
            if end == -1:
                raise MarkupError(f"{where}: '[[' not closed by ']]' on the same line")
            body = line[opened + len(OPEN) : end]
            if OPEN in body:
                raise MarkupError(f"{where}: '[[' inside a mention (mentions do not nest)")
            if SEP not in body:
                raise MarkupError(f"{where}: mention without '|' between label and text")
            label, surface = body.split(SEP, 1)
            if label not in LABELS:
                raise MarkupError(f"{where}: unknown label {label!r}")
            if SEP in surface:
                raise MarkupError(f"{where}: a second '|' in the mention")
            if not surface:
                raise MarkupError(f"{where}: empty mention")
            if "\t" in surface:
                raise MarkupError(f"{where}: tab inside a mention")
            if surface != surface.strip():
                raise MarkupError(f"{where}: mention starts or ends with a space")
            before = line[i:opened]
            out.append(before)
            pos += len(before)
            entities.append((label, pos, pos + len(surface)))
            out.append(surface)
            pos += len(surface)
            i = end + len(CLOSE)
    return "".join(out), entities


def read_sources(source: Path) -> list[SourceDoc]:
    """Parse every ``<doctype>/<doctype>_<NN>.txt`` under `source`, sorted by id."""
    source = Path(source)
    if not source.is_dir():
        raise MarkupError(f"{source}: not a folder")
    docs = []
    for path in sorted(source.glob("*/*.txt")):
        match = SOURCE_NAME.fullmatch(path.name)
        if not match or match["doctype"] != path.parent.name:
            raise MarkupError(
                f"{path}: expected the name <doctype>_<NN>.txt inside the folder <doctype>/"
            )
        text, entities = parse_markup(read_text(path), path)
        docs.append(SourceDoc(path.stem, match["doctype"], text, entities))
    if not docs:
        raise MarkupError(f"{source}: no <doctype>/<doctype>_<NN>.txt sources")
    return docs


def expected_files(docs: Iterable[SourceDoc]) -> dict[str, str]:
    """File name -> content of the built set."""
    files = {}
    for doc in docs:
        files[f"{doc.doc_id}.txt"] = doc.text
        files[f"{doc.doc_id}.ann"] = format_ann(doc.text, doc.entities)
    return files


def write_set(docs: Iterable[SourceDoc], out: Path) -> None:
    for doc in docs:
        write_brat(out, doc.doc_id, doc.text, doc.entities)


def compare(docs: Iterable[SourceDoc], out: Path) -> dict[str, list[str]]:
    """Built files that are missing, differ from the sources, or come from no source."""
    expected = expected_files(docs)
    out = Path(out)
    result: dict[str, list[str]] = {"missing": [], "differs": [], "extra": []}
    for name, content in sorted(expected.items()):
        path = out / name
        if not path.exists():
            result["missing"].append(name)
        elif read_text(path) != content:
            result["differs"].append(name)
    present = {p.name for p in out.glob("*.txt")} | {p.name for p in out.glob("*.ann")}
    result["extra"] = sorted(present - set(expected))
    return result


def summary(docs: Iterable[SourceDoc]) -> tuple[list[tuple[str, int, int]], Counter]:
    """Rows (doctype, reports, mentions) sorted by doctype, and the mentions per label."""
    reports: Counter = Counter()
    mentions: Counter = Counter()
    labels: Counter = Counter()
    for doc in docs:
        reports[doc.doctype] += 1
        mentions[doc.doctype] += len(doc.entities)
        labels.update(label for label, _s, _e in doc.entities)
    rows = [(doctype, reports[doctype], mentions[doctype]) for doctype in sorted(reports)]
    return rows, labels
