"""BRAT `.ann` files of a de-identified report, and a check that one lines up with its text.

Two files, never side by side:

- the shared `.ann`, beside the de-identified `.txt`: the OUTPUT's offsets, one entity on
  each replacement (`format_output_ann`), so that BRAT shows it on the tag, mask or
  surrogate text. A `redact` replacement is empty: it gets no entity (BRAT has no
  zero-width entities); its number is skipped, so `T<n>` is the n-th PHI in both files.
- the private `.ann`: the ORIGINAL's offsets and the original PHI (`format_private_ann`),
  written only on request into a folder that is never the shared one.

A span that crosses a line break (or a tab) is written as BRAT fragments
(`LABEL 10 14;15 20`, text column = the fragments joined by a space), as BRAT itself
does, because the `.ann` text column is one line.
"""
import re
from typing import List, Sequence, Tuple

from .operators import Replacement
from ..errors import AnnError  # noqa: F401  (re-exported)

# characters that end a line for str.splitlines (which BRAT readers use), and the tab
_BREAK = re.compile(r"[\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")
_LINE = re.compile(r"^T(\d+)\t(\S+) (\d+ \d+(?:;\d+ \d+)*)\t(.*)$")


def fragments(text: str, start: int, end: int) -> List[Tuple[int, int]]:
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


def _line(n: int, label: str, text: str, start: int, end: int) -> str:
    frags = fragments(text, start, end)
    if not frags:  # empty or only whitespace breaks: nothing BRAT can show
        return ""
    offsets = ";".join(f"{s} {e}" for s, e in frags)
    surface = " ".join(text[s:e] for s, e in frags)
    return f"T{n}\t{label} {offsets}\t{surface}\n"


def format_output_ann(new_text: str, replacements: Sequence[Replacement]) -> str:
    """BRAT lines for the de-identified text: each entity on its replacement
    (`new_start`, `new_end`); empty replacements (redact) get no line."""
    return "".join(_line(i, r.label, new_text, r.new_start, r.new_end) for i, r in enumerate(replacements, start=1))


def format_private_ann(original: str, replacements: Sequence[Replacement]) -> str:
    """BRAT lines for the ORIGINAL text (they quote the PHI): keep away from the shared output."""
    return "".join(_line(i, r.label, original, r.start, r.end) for i, r in enumerate(replacements, start=1))


def parse_ann(ann: str) -> List[Tuple[str, str, List[Tuple[int, int]], str]]:
    """(T-id, label, fragments, text column) of each T line; other lines are skipped."""
    out = []
    for lineno, line in enumerate(ann.split("\n"), start=1):
        if not line.startswith("T"):
            continue
        m = _LINE.match(line)
        if not m:
            raise AnnError(f"line {lineno}: expected 'T<n>\\t<LABEL> <start> <end>[;<start> <end>...]\\t<text>'")
        frags = [tuple(int(x) for x in f.split(" ")) for f in m.group(3).split(";")]
        out.append((f"T{m.group(1)}", m.group(2), frags, m.group(4)))
    return out


def validate_ann(text: str, ann: str) -> int:
    """Check that every entity of `ann` (BRAT content) lines up with `text`: offsets inside
    the text, fragments ordered and non-empty, and the text column equal to the text at
    the offsets (fragments joined by a space). Returns the number of entities; raises
    AnnError naming the first bad line."""
    seen = set()
    n = 0
    for lineno, (tid, label, frags, surface) in enumerate(parse_ann(ann), start=1):
        where = f"entity {tid} ({label})"
        if tid in seen:
            raise AnnError(f"{where}: duplicate id")
        seen.add(tid)
        last = 0
        for s, e in frags:
            if not last <= s < e <= len(text):
                raise AnnError(f"{where}: fragment {s}-{e} empty, unordered or outside the text (length {len(text)})")
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
    from pathlib import Path

    from ..evaluation.brat import read_text

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
