"""doccano sequence labelling (https://doccano.github.io/doccano/): JSONL, one report a line.

Export: `doccano.jsonl`, `{"id": doc id, "text", "label": [[start, end, LABEL], ...]}`
(doccano's import format; `id` is kept as metadata). Import: the same, or doccano's export
of a project with relations, `"entities": [{"start_offset", "end_offset", "label"}, ...]`.
Offsets are characters of `text`. The doc id is `id`, else `doc_id`, else `line-N`.
"""

import json
from pathlib import Path

from ..errors import AnnotationError
from ..files import atomic_write
from .report import AnnotatedReport

FILE = "doccano.jsonl"


def write(reports: list[AnnotatedReport], folder: Path) -> Path:
    lines = []
    for r in reports:
        spans = sorted(r.spans, key=lambda s: (s[1], s[2], s[0]))
        lines.append(
            json.dumps(
                {"id": r.doc_id, "text": r.text, "label": [[s, e, lab] for lab, s, e in spans]},
                ensure_ascii=False,
            )
            + "\n"
        )
    path = folder / FILE
    atomic_write(path, "".join(lines))
    return path


def _spans(obj: dict, where: str) -> list[tuple]:
    if "entities" in obj and "label" not in obj:
        items = obj["entities"]
        if not isinstance(items, list):
            raise AnnotationError(f"{where}: 'entities' is not a list")
        out = []
        for j, e in enumerate(items):
            if not isinstance(e, dict) or not {"start_offset", "end_offset", "label"} <= set(e):
                raise AnnotationError(
                    f"{where}: entity {j} is not {{start_offset, end_offset, label}}"
                )
            out.append((e["label"], e["start_offset"], e["end_offset"]))
        return out
    items = obj.get("label", [])
    if not isinstance(items, list):
        raise AnnotationError(f"{where}: 'label' is not a list of [start, end, LABEL]")
    out = []
    for j, item in enumerate(items):
        if not isinstance(item, list) or len(item) != 3 or not isinstance(item[2], str):
            raise AnnotationError(f"{where}: label {j} is not [start, end, LABEL]")
        out.append((item[2], item[0], item[1]))
    return out


def read(path: Path) -> list[AnnotatedReport]:
    try:
        fh = open(path, "rb")
    except OSError as err:
        raise AnnotationError(
            f"{path}: cannot read ({err.strerror or type(err).__name__})"
        ) from None
    reports = []
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as err:
                raise AnnotationError(f"{where}: not valid UTF-8 (byte {err.start})") from None
            except json.JSONDecodeError as err:
                raise AnnotationError(
                    f"{where}: not valid JSON ({err.msg}, column {err.colno})"
                ) from None
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise AnnotationError(f"{where}: expected an object with a 'text' string")
            doc_id = obj.get("id", obj.get("doc_id", f"line-{lineno}"))
            reports.append(
                AnnotatedReport(str(doc_id), obj["text"], _spans(obj, where), where=where)
            )
    if not reports:
        raise AnnotationError(f"{path}: no records")
    return reports
