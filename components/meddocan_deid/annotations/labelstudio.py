"""Label Studio (https://labelstud.io/guide/tasks, /guide/predictions, /guide/export).

Export: `labelstudio.json`, a task list to import into a project whose labelling config is
`labelstudio_config.xml` (written beside it: `<Labels name="label" toName="text">` with the
29 labels over `<Text name="text" value="$text"/>`). Each task is
`{"data": {"text", "doc_id"}, "predictions": [{"model_version", "result": [...]}]}`, a result
item `{"id", "from_name": "label", "to_name": "text", "type": "labels",
"value": {"start", "end", "text", "labels": [LABEL]}}`.

Import: Label Studio's JSON export (a task list): per task the last annotation that was not
cancelled (latest `updated_at`), its `result` items of type `labels`; with
`use_predictions` a task without one falls back to its last prediction, else it is skipped
(and counted). Offsets are characters of `data.text`; when `value.text` shows that they
count UTF-16 code units (text with characters outside the BMP, as a browser counts), they
are converted.
"""

import json
from pathlib import Path

from .. import LABELS
from ..errors import AnnotationError
from ..files import atomic_write
from .report import AnnotatedReport

TASKS = "labelstudio.json"
CONFIG = "labelstudio_config.xml"
FROM_NAME, TO_NAME = "label", "text"


def labelling_config() -> str:
    labels = "\n".join(f'    <Label value="{label}"/>' for label in LABELS)
    return (
        f'<View>\n  <Labels name="{FROM_NAME}" toName="{TO_NAME}">\n{labels}\n  </Labels>\n'
        f'  <Text name="{TO_NAME}" value="$text"/>\n</View>\n'
    )


def result_items(text: str, spans) -> list[dict]:
    return [
        {
            "id": f"T{n}",
            "from_name": FROM_NAME,
            "to_name": TO_NAME,
            "type": "labels",
            "value": {"start": start, "end": end, "text": text[start:end], "labels": [label]},
        }
        for n, (label, start, end) in enumerate(
            sorted(spans, key=lambda s: (s[1], s[2], s[0])), start=1
        )
    ]


def write(reports: list[AnnotatedReport], folder: Path, model_version: str = "") -> Path:
    tasks = [
        {
            "data": {"text": r.text, "doc_id": r.doc_id},
            "predictions": [
                {"model_version": model_version, "result": result_items(r.text, r.spans)}
            ],
        }
        for r in reports
    ]
    path = folder / TASKS
    atomic_write(path, json.dumps(tasks, ensure_ascii=False, indent=1))
    atomic_write(folder / CONFIG, labelling_config())
    return path


def _utf16_to_chars(text: str) -> list[int]:
    """index in UTF-16 code units -> index in characters, for every boundary of `text`."""
    table = []
    for i, ch in enumerate(text):
        table.append(i)
        if ord(ch) > 0xFFFF:
            table.append(-1)  # the middle of a surrogate pair: no character boundary
    table.append(len(text))
    return table


def _pick(entries, use_cancelled: bool = False) -> dict | None:
    entries = [
        e for e in entries if isinstance(e, dict) and (use_cancelled or not e.get("was_cancelled"))
    ]
    if not entries:
        return None
    # the latest correction; entries without a date keep their list order (the last wins)
    return max(
        enumerate(entries),
        key=lambda ie: (str(ie[1].get("updated_at") or ie[1].get("created_at") or ""), ie[0]),
    )[1]


def _spans(text: str, result, where: str) -> list[tuple]:
    if not isinstance(result, list):
        raise AnnotationError(f"{where}: 'result' is not a list")
    spans, table = [], None
    for j, item in enumerate(result):
        at = f"{where}, result {j}"
        if not isinstance(item, dict):
            raise AnnotationError(f"{at}: not an object")
        if item.get("type") != "labels":
            continue  # relations, choices, text areas: no entity
        value = item.get("value")
        if not isinstance(value, dict):
            raise AnnotationError(f"{at}: no 'value' object")
        start, end, labels = value.get("start"), value.get("end"), value.get("labels")
        if (
            not (isinstance(start, int) and isinstance(end, int))
            or isinstance(start, bool)
            or isinstance(end, bool)
        ):
            raise AnnotationError(f"{at}: 'value.start' and 'value.end' must be integers")
        if not isinstance(labels, list) or len(labels) != 1 or not isinstance(labels[0], str):
            raise AnnotationError(f"{at}: 'value.labels' must hold exactly one label")
        surface = value.get("text")
        if isinstance(surface, str) and text[start:end] != surface:
            table = table or _utf16_to_chars(text)
            s, e = (table[start], table[end]) if 0 <= start < end < len(table) else (-1, -1)
            if s < 0 or e < 0 or text[s:e] != surface:
                raise AnnotationError(f"{at}: 'value.text' differs from data.text at {start}-{end}")
            start, end = s, e
        spans.append((labels[0], start, end))
    return spans


def read(
    path: Path, use_predictions: bool = False, notes: list | None = None
) -> list[AnnotatedReport]:
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AnnotationError(f"{path}: file not found") from None
    except UnicodeDecodeError as err:
        raise AnnotationError(f"{path}: not valid UTF-8 (byte {err.start})") from None
    try:
        tasks = json.loads(raw)
    except json.JSONDecodeError as err:
        raise AnnotationError(
            f"{path}:{err.lineno}: not valid JSON ({err.msg}, column {err.colno})"
        ) from None
    if isinstance(tasks, dict):
        tasks = [tasks]
    if not isinstance(tasks, list):
        raise AnnotationError(f"{path}: expected a list of Label Studio tasks (the JSON export)")
    reports, skipped = [], 0
    for i, task in enumerate(tasks):
        where = f"{path}: task {i}"
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            raise AnnotationError(
                f"{where}: not a task with a 'data' object (the JSON export, not JSON-MIN or CSV)"
            )
        text = task["data"].get("text")
        if not isinstance(text, str):
            raise AnnotationError(f"{where}: 'data.text' is missing or not a string")
        chosen = _pick(task.get("annotations") or task.get("completions") or [])
        if chosen is None and use_predictions:
            chosen = _pick(task.get("predictions") or [], use_cancelled=True)
        if chosen is None:
            skipped += 1
            continue
        doc_id = task["data"].get("doc_id") or (
            f"task-{task['id']}" if "id" in task else f"task-{i}"
        )
        reports.append(
            AnnotatedReport(
                str(doc_id), text, _spans(text, chosen.get("result"), where), where=where
            )
        )
    if notes is not None and skipped:
        notes.append(
            f"{path}: {skipped} of {len(tasks)} tasks have no annotation and were skipped"
            + ("" if use_predictions else " (--use-predictions takes the model's for them)")
        )
    return reports
