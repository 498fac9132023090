"""Annotation round trip: the pipeline's entities out to an annotation tool, the corrected
annotations back in as a DocBin for fine-tuning.

One module per format, all on the common record `AnnotatedReport` (doc id, text, spans in
the text's character offsets, end exclusive):

- `brat`: a folder of `.txt` + `.ann` (brat, INCEpTION), read with `meddocan_deid.brat`;
- `labelstudio`: a Label Studio task list (JSON) with `predictions` on export, its
  `annotations` (or, on request, `predictions`) on import;
- `doccano`: doccano sequence-labelling JSONL (`text`, `label` [[start, end, LABEL]]).

`docbin.to_docbin` tokenizes the records with the project tokenizer and checks the
alignment as `scripts/convert.py` does. Errors name the file and the line, JSON line or
task, never report text: the records hold PHI.
"""

from collections.abc import Iterable
from pathlib import Path

from ..errors import AnnotationError  # noqa: F401  (re-exported)
from . import brat, doccano, labelstudio
from .report import FORMATS, AnnotatedReport, Span, check_spans  # noqa: F401  (the package's names)


def write_annotations(
    fmt: str, reports: Iterable[AnnotatedReport], dest: Path, model_version: str = ""
) -> Path:
    """Write `reports` in `fmt` under the folder `dest`; returns the main file or folder.
    model_version: the pipeline that made the spans (Label Studio's `predictions`)."""
    reports, dest = list(reports), Path(dest)
    if fmt == "brat":
        return brat.write(reports, dest)
    if fmt == "labelstudio":
        return labelstudio.write(reports, dest, model_version=model_version)
    if fmt == "doccano":
        return doccano.write(reports, dest)
    raise AnnotationError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def read_annotations(
    fmt: str, src: Path, *, use_predictions: bool = False, notes=None
) -> list[AnnotatedReport]:
    """The records of a BRAT folder, a Label Studio JSON export or a doccano JSONL file, checked
    (offsets inside the text, MEDDOCAN labels, unique doc ids). `notes` (a list) gets what
    was skipped (Label Studio tasks without an annotation)."""
    src = Path(src)
    if fmt == "brat":
        reports = brat.read(src)
    elif fmt == "labelstudio":
        reports = labelstudio.read(src, use_predictions=use_predictions, notes=notes)
    elif fmt == "doccano":
        reports = doccano.read(src)
    else:
        raise AnnotationError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    seen: dict[str, str] = {}
    for report in reports:
        check_spans(report)
        if report.doc_id in seen:
            raise AnnotationError(
                f"{report.where}: document id {report.doc_id!r} repeats {seen[report.doc_id]}"
            )
        seen[report.doc_id] = report.where
    return reports


def export_private_dir(private_dir: Path, fmt: str, model_version: str = "") -> Path:
    """After a deidentify run with `--private-dir`: that folder is already a BRAT collection of
    the originals (original offsets); add the brat `annotation.conf`, or write the Label Studio
    or doccano file of every report in it (reports of earlier resumed runs included)."""
    private_dir = Path(private_dir)
    if fmt == "brat":
        brat.write_conf(private_dir)
        return private_dir
    return write_annotations(fmt, brat.read(private_dir), private_dir, model_version=model_version)
