"""BRAT standoff files: the one module that reads, writes and checks them (the converter,
the evaluation, the de-identification outputs and the annotation-tool export all use it).

Offsets are Unicode characters of the `.txt` file, end exclusive. Files are read with
plain ``utf-8`` (not ``utf-8-sig``): 22 corpus reports start with a BOM that the gold
offsets count as character 0.

- Corpus files: `read_ann` / `read_brat_dir` (a span across a line break, written as
  fragments with only whitespace between them, is read as one span), `format_ann` /
  `write_brat` (one line per entity, line breaks in the text column as spaces).
- De-identification outputs, two files never side by side: the shared `.ann` beside the
  de-identified `.txt`, in the OUTPUT's offsets, one entity on each replacement
  (`format_output_ann`; a `redact` replacement is empty and gets no entity, its number is
  skipped, so `T<n>` is the n-th PHI in both files); and the private `.ann`, in the
  ORIGINAL's offsets, quoting the PHI (`format_private_ann`), written only on request into a
  folder that is never the shared one. `format_fragment_ann` writes the same lines for a
  list of spans (the annotation-tool export), `annotation_conf` the labels' annotation.conf.
  A span that crosses a line break (or a tab) is written as BRAT fragments
  (`LABEL 10 14;15 20`, text column = the fragments joined by a space), as BRAT itself does.
- Checks: `parse_ann` / `validate_ann` / `validate_folder` (AnnError naming the line).

Messages name files, lines and offsets, never the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import LABELS
from .errors import AnnError, BratError  # noqa: F401  (raised here)
from .files import atomic_write

Annotation = tuple[str, int, int]  # (label, start, end)


@dataclass
class BratDocument:
    doc_id: str
    text: str
    entities: list[Annotation] = field(default_factory=list)


def read_text(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return fh.read()
    except UnicodeDecodeError as err:
        raise BratError(f"{path}: not valid UTF-8 (byte {err.start})") from None


def read_ann(path: Path, text: str) -> list[Annotation]:
    """Read the text-bound (T) annotations of one `.ann` file, checked against `text`."""
    entities: list[Annotation] = []
    for lineno, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or not line.startswith("T"):
            continue  # relations, notes and attributes carry no spans
        parts = line.split("\t")
        if len(parts) < 2:
            raise BratError(f"{path}:{lineno}: expected 'T<n>\\t<LABEL> <start> <end>\\t<text>'")
        label, _, offsets = parts[1].partition(" ")
        pairs = [f.split(" ") for f in offsets.split(";")]
        if not label or not all(len(f) == 2 and f[0].isdigit() and f[1].isdigit() for f in pairs):
            raise BratError(
                f"{path}:{lineno}: expected '<LABEL> <start> <end>' (or fragments '<start> "
                "<end>;<start> <end>')"
            )
        frags = [(int(s), int(e)) for s, e in pairs]
        last = 0
        for s, e in frags:
            if not 0 <= s < e <= len(text) or s < last:
                raise BratError(
                    f"{path}:{lineno}: offsets {s}-{e} outside the text (length {len(text)}) or "
                    "out of order"
                )
            last = e
        # BRAT writes an entity that crosses a line break as fragments: one span when only
        # whitespace lies between them (MEDDOCAN has none; a real discontinuous span is an error)
        gaps = [text[a[1] : b[0]] for a, b in zip(frags, frags[1:])]
        if any(gap.strip() for gap in gaps):
            raise BratError(
                f"{path}:{lineno}: discontinuous span {offsets} (fragments with text between them)"
            )
        start, end = frags[0][0], frags[-1][1]
        if len(parts) > 2 and parts[2] not in (
            text[start:end],
            " ".join(text[s:e] for s, e in frags),
            _one_line(text[start:end]),
        ):
            raise BratError(
                f"{path}:{lineno}: surface text does not match the offsets {start}-{end}"
            )
        entities.append((label, start, end))
    return entities


def _one_line(surface: str) -> str:
    """The text column `format_ann` writes: line breaks and tabs as spaces."""
    return surface.replace("\n", " ").replace("\t", " ")


def read_brat_dir(path: Path) -> Iterator[BratDocument]:
    """Yield the documents of a BRAT folder, sorted by id. A `.txt`
    without `.ann` has no entities."""
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
    for i, (label, start, end) in enumerate(
        sorted(entities, key=lambda e: (e[1], e[2], e[0])), start=1
    ):
        surface = _one_line(text[start:end])
        lines.append(f"T{i}\t{label} {start} {end}\t{surface}\n")
    return "".join(lines)


def write_brat(folder: Path, doc_id: str, text: str, entities: Iterable[Annotation]) -> None:
    """Write `doc_id.txt` (a copy of the text) and `doc_id.ann` into `folder`."""
    folder = Path(folder)
    atomic_write(folder / f"{doc_id}.txt", text)
    atomic_write(folder / f"{doc_id}.ann", format_ann(text, entities))


# characters that end a line for str.splitlines (which BRAT readers use), and the tab
_BREAK = re.compile(r"[\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")
_LINE = re.compile(r"^T(\d+)\t(\S+) (\d+ \d+(?:;\d+ \d+)*)\t(.*)$")


def fragments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The BRAT fragments of `text[start:end]`: the runs between line breaks and tabs."""
    out = []
    pos = start
    for m in _BREAK.finditer(text, start, end):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < end:
        out.append((pos, end))
    return out


def fragment_line(n: int, label: str, text: str, start: int, end: int) -> str:
    """The T line of entity `n` on `text[start:end]`, as fragments where it crosses a line
    break or a tab; empty when nothing of it can be shown."""
    frags = fragments(text, start, end)
    if not frags:  # empty or only whitespace breaks: nothing BRAT can show
        return ""
    offsets = ";".join(f"{s} {e}" for s, e in frags)
    surface = " ".join(text[s:e] for s, e in frags)
    return f"T{n}\t{label} {offsets}\t{surface}\n"


def format_output_ann(new_text: str, replacements: Sequence) -> str:
    """BRAT lines for the de-identified text: each entity on its replacement
    (`new_start`, `new_end`); empty replacements (redact) get no line."""
    return "".join(
        fragment_line(i, r.label, new_text, r.new_start, r.new_end)
        for i, r in enumerate(replacements, start=1)
    )


def format_private_ann(original: str, replacements: Sequence) -> str:
    """BRAT lines for the ORIGINAL text (they quote the PHI): keep away from the shared output."""
    return "".join(
        fragment_line(i, r.label, original, r.start, r.end)
        for i, r in enumerate(replacements, start=1)
    )


def parse_ann(ann: str) -> list[tuple[str, str, list[tuple[int, int]], str]]:
    """(T-id, label, fragments, text column) of each T line; other lines are skipped."""
    out = []
    for lineno, line in enumerate(ann.split("\n"), start=1):
        if not line.startswith("T"):
            continue
        m = _LINE.match(line)
        if not m:
            raise AnnError(
                f"line {lineno}: expected 'T<n>\\t<LABEL> <start> <end>[;<start> "
                "<end>...]\\t<text>'"
            )
        # the pattern allows exactly two numbers a fragment
        frags = [(int(f.split(" ")[0]), int(f.split(" ")[1])) for f in m.group(3).split(";")]
        out.append((f"T{m.group(1)}", m.group(2), frags, m.group(4)))
    return out


def validate_ann(text: str, ann: str) -> int:
    """Check that every entity of `ann` (BRAT content) lines up with `text`: offsets inside
    the text, fragments ordered and non-empty, and the text column equal to the text at
    the offsets (fragments joined by a space). Returns the number of entities; raises
    AnnError naming the first bad line."""
    seen = set()
    n = 0
    for tid, label, frags, surface in parse_ann(ann):
        where = f"entity {tid} ({label})"
        if tid in seen:
            raise AnnError(f"{where}: duplicate id")
        seen.add(tid)
        last = 0
        for s, e in frags:
            if not last <= s < e <= len(text):
                raise AnnError(
                    f"{where}: fragment {s}-{e} empty, unordered or outside the text (length "
                    f"{len(text)})"
                )
            last = e
        if " ".join(text[s:e] for s, e in frags) != surface:
            spans = ";".join(f"{s}-{e}" for s, e in frags)
            raise AnnError(f"{where}: the text column differs from the text at {spans}")
        n += 1
    return n


def validate_folder(folder) -> int:
    """`validate_ann` on every `.txt` + `.ann` pair under `folder` (recursive; hidden files and
    a `.txt` without `.ann` skipped). Returns the number of entities; raises AnnError naming
    the file."""
    folder = Path(folder)
    if not folder.is_dir():
        raise AnnError(f"{folder}: not a folder")
    n = 0
    for txt in sorted(folder.rglob("*.txt")):
        ann = txt.with_suffix(".ann")
        if txt.name.startswith(".") or not ann.is_file():
            continue
        try:
            n += validate_ann(read_text(txt), read_text(ann))
        except AnnError as err:
            raise AnnError(f"{ann}: {err}") from None
    return n


def format_fragment_ann(text: str, spans: Iterable[Annotation]) -> str:
    """BRAT T lines in the text's offsets, sorted; fragments where a span crosses a line break."""
    return "".join(
        fragment_line(n, label, text, start, end)
        for n, (label, start, end) in enumerate(
            sorted(spans, key=lambda s: (s[1], s[2], s[0])), start=1
        )
    )


def annotation_conf() -> str:
    """The `annotation.conf` of a folder annotated with the 29 labels."""
    entities = "\n".join(LABELS)
    return f"[entities]\n{entities}\n\n[relations]\n\n[events]\n\n[attributes]\n"
