"""BRAT folders (brat, INCEpTION): `ID.txt` + `ID.ann` per report, and an `annotation.conf`
with the 29 labels. Written as the deidentify run's `--private-dir` writes originals
(a span across a line break as BRAT fragments) and read with the one BRAT module,
`meddocan_deid.brat`."""

from pathlib import Path

from ..brat import BratError, annotation_conf, format_fragment_ann, read_ann, read_text
from ..errors import AnnotationError
from ..files import atomic_write
from .report import AnnotatedReport

CONF = "annotation.conf"
format_ann = format_fragment_ann  # the name this module had for it


def write_conf(folder: Path) -> None:
    atomic_write(Path(folder) / CONF, annotation_conf())


def write(reports: list[AnnotatedReport], folder: Path) -> Path:
    """`doc_id.txt` (the text as is) and `doc_id.ann` per report; a doc
    id with `/` makes subfolders."""
    for r in reports:
        atomic_write(folder / f"{r.doc_id}.txt", r.text)
        atomic_write(folder / f"{r.doc_id}.ann", format_fragment_ann(r.text, r.spans))
    write_conf(folder)
    return folder


def read(folder: Path) -> list[AnnotatedReport]:
    """Every `.txt` under `folder` (recursive, hidden files skipped) with its `.ann` (none: no
    entities); the doc id is the path relative to `folder` without `.txt`."""
    if not folder.is_dir():
        raise AnnotationError(f"{folder}: not a folder")
    reports = []
    for txt in sorted(folder.rglob("*.txt")):
        rel = txt.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts):
            continue
        ann = txt.with_suffix(".ann")
        try:
            text = read_text(txt)
            spans = read_ann(ann, text) if ann.is_file() else []
        except BratError as err:
            raise AnnotationError(str(err)) from None
        # read_ann gives one entity per T line, in order: their line numbers, for messages
        lines = read_text(ann).splitlines() if ann.is_file() else []
        numbers = [
            n for n, line in enumerate(lines, start=1) if line.strip() and line.startswith("T")
        ]
        reports.append(
            AnnotatedReport(
                rel.with_suffix("").as_posix(),
                text,
                spans,
                where=str(ann),
                span_where=[f"{ann}:{n}" for n in numbers],
            )
        )
    if not reports:
        raise AnnotationError(f"{folder}: no .txt reports")
    return reports
