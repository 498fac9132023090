"""BRAT standoff I/O: one module for the converter, the evaluation and the export.

Offsets are Unicode characters of the `.txt` file, end exclusive. Files are read
with plain ``utf-8`` (not ``utf-8-sig``): 22 corpus reports start with a BOM that
the gold offsets count as character 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Tuple

from ..files import atomic_write
from ..errors import BratError  # noqa: F401  (re-exported)

Annotation = Tuple[str, int, int]  # (label, start, end)


@dataclass
class BratDocument:
    doc_id: str
    text: str
    entities: List[Annotation] = field(default_factory=list)


def read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as err:
        raise BratError(f"{path}: not valid UTF-8 (byte {err.start})") from None


def read_ann(path: Path, text: str) -> List[Annotation]:
    """Read the text-bound (T) annotations of one `.ann` file, checked against `text`."""
    entities: List[Annotation] = []
    for lineno, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or not line.startswith("T"):
            continue  # relations, notes and attributes carry no spans
        parts = line.split("\t")
        if len(parts) < 2:
            raise BratError(f"{path}:{lineno}: expected 'T<n>\\t<LABEL> <start> <end>\\t<text>'")
        label, _, offsets = parts[1].partition(" ")
        frags = [f.split(" ") for f in offsets.split(";")]
        if not label or not all(len(f) == 2 and f[0].isdigit() and f[1].isdigit() for f in frags):
            raise BratError(f"{path}:{lineno}: expected '<LABEL> <start> <end>' (or fragments '<start> <end>;<start> <end>')")
        frags = [(int(s), int(e)) for s, e in frags]
        last = 0
        for s, e in frags:
            if not 0 <= s < e <= len(text) or s < last:
                raise BratError(f"{path}:{lineno}: offsets {s}-{e} outside the text (length {len(text)}) or out of order")
            last = e
        # BRAT writes an entity that crosses a line break as fragments: one span when only
        # whitespace lies between them (MEDDOCAN has none; a real discontinuous span is an error)
        gaps = [text[a[1]:b[0]] for a, b in zip(frags, frags[1:])]
        if any(gap.strip() for gap in gaps):
            raise BratError(f"{path}:{lineno}: discontinuous span {offsets} (fragments with text between them)")
        start, end = frags[0][0], frags[-1][1]
        if len(parts) > 2 and parts[2] not in (text[start:end], " ".join(text[s:e] for s, e in frags),
                                               _one_line(text[start:end])):
            raise BratError(f"{path}:{lineno}: surface text does not match the offsets {start}-{end}")
        entities.append((label, start, end))
    return entities


def _one_line(surface: str) -> str:
    """The text column `format_ann` writes: line breaks and tabs as spaces."""
    return surface.replace("\n", " ").replace("\t", " ")


def read_brat_dir(path: Path) -> Iterator[BratDocument]:
    """Yield the documents of a BRAT folder, sorted by id. A `.txt` without `.ann` has no entities."""
    path = Path(path)
    if not path.is_dir():
        raise BratError(f"{path}: not a folder")
    for txt in sorted(path.glob("*.txt")):
        text = read_text(txt)
        ann = txt.with_suffix(".ann")
        entities = read_ann(ann, text) if ann.exists() else []
        yield BratDocument(txt.stem, text, entities)


def format_ann(text: str, entities: Iterable[Annotation]) -> str:
    lines = []
    for i, (label, start, end) in enumerate(sorted(entities, key=lambda e: (e[1], e[2], e[0])), start=1):
        surface = _one_line(text[start:end])
        lines.append(f"T{i}\t{label} {start} {end}\t{surface}\n")
    return "".join(lines)


def write_brat(folder: Path, doc_id: str, text: str, entities: Iterable[Annotation]) -> None:
    """Write `doc_id.txt` (a copy of the text) and `doc_id.ann` into `folder`."""
    folder = Path(folder)
    atomic_write(folder / f"{doc_id}.txt", text)
    atomic_write(folder / f"{doc_id}.ann", format_ann(text, entities))
