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

Annotation = Tuple[str, int, int]  # (label, start, end)


class BratError(ValueError):
    """A BRAT file that cannot be read. The message names the file, never its text."""


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
        fields = parts[1].split(" ")
        if len(fields) != 3 or not fields[1].isdigit() or not fields[2].isdigit():
            # discontinuous spans ("0 5;7 9") do not occur in MEDDOCAN
            raise BratError(f"{path}:{lineno}: expected '<LABEL> <start> <end>' with one continuous span")
        label, start, end = fields[0], int(fields[1]), int(fields[2])
        if not 0 <= start < end <= len(text):
            raise BratError(f"{path}:{lineno}: offsets {start}-{end} outside the text (length {len(text)})")
        if len(parts) > 2 and parts[2] != text[start:end]:
            raise BratError(f"{path}:{lineno}: surface text does not match the offsets {start}-{end}")
        entities.append((label, start, end))
    return entities


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
        surface = text[start:end].replace("\n", " ").replace("\t", " ")
        lines.append(f"T{i}\t{label} {start} {end}\t{surface}\n")
    return "".join(lines)


def write_brat(folder: Path, doc_id: str, text: str, entities: Iterable[Annotation]) -> None:
    """Write `doc_id.txt` (a copy of the text) and `doc_id.ann` into `folder`."""
    folder = Path(folder)
    atomic_write(folder / f"{doc_id}.txt", text)
    atomic_write(folder / f"{doc_id}.ann", format_ann(text, entities))
