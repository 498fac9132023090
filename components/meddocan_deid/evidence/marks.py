"""The reviewer's marks of a sample: for each sampled report, the spans the run found and the
PHI that is really there (`truth`).

Two sources, the same result:

- `marks.jsonl` of the sample folder, edited by the reviewer: per report `missed` (PHI left in
  clear, `[label, start, end]` on the original), `not_phi` (found spans that are not PHI, as
  they appear in `detected`) and `reviewed: true`. Truth = detected - not_phi + missed.
- a Label Studio JSON export of the sample's `labelstudio.json` (the found spans came in as
  predictions; the reviewer's annotation is the truth), matched to `marks.jsonl` by doc id.

Every sampled report must be reviewed: an unreviewed one is an error naming the file and line.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from .. import LABELS
from ..annotations import read_annotations
from ..errors import AnnotationError, RunError
from .sampling import MARKS_FILE

Span = tuple[str, int, int]


@dataclass
class MarkedReport:
    id: str
    stratum: str
    detected: list[Span]
    truth: list[Span]


def _spans(value, where: str, key: str) -> list[Span]:
    if not isinstance(value, list):
        raise RunError(f"{where}: '{key}' must be a list of [label, start, end]")
    spans = []
    for item in value:
        if (
            not isinstance(item, list)
            or len(item) != 3
            or item[0] not in LABELS
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in item[1:])
            or not 0 <= item[1] < item[2]
        ):
            raise RunError(
                f"{where}: '{key}': {json.dumps(item)[:80]} is not [MEDDOCAN label, start, end]"
            )
        spans.append((item[0], item[1], item[2]))
    return spans


def marks_path(path: Path) -> Path:
    """The marks file of a sample folder, or the file given."""
    path = Path(path)
    return path / MARKS_FILE if path.is_dir() else path


def read_marks(path: Path, *, require_reviewed: bool = True) -> list[MarkedReport]:
    """The marked reports of `marks.jsonl` (or of the sample folder holding it)."""
    path = marks_path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise RunError(f"{path}: marks file not found") from None
    except (OSError, UnicodeDecodeError) as err:
        raise RunError(f"{path}: cannot read the marks ({type(err).__name__})") from None
    reports, seen = [], set()
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            row = json.loads(line)
        except ValueError:
            raise RunError(f"{where}: not valid JSON") from None
        if not isinstance(row, dict) or not isinstance(row.get("id"), str):
            raise RunError(f"{where}: expected an object with an 'id'")
        if row["id"] in seen:
            raise RunError(f"{where}: report {row['id']!r} is marked twice")
        seen.add(row["id"])
        if require_reviewed and row.get("reviewed") is not True:
            raise RunError(f'{where}: report {row["id"]!r} is not reviewed (set "reviewed": true)')
        detected = _spans(row.get("detected", []), where, "detected")
        missed = _spans(row.get("missed", []), where, "missed")
        not_phi = _spans(row.get("not_phi", []), where, "not_phi")
        unknown = [s for s in not_phi if s not in detected]
        if unknown:
            raise RunError(f"{where}: 'not_phi' {list(unknown[0])} is not one of 'detected'")
        truth = [s for s in detected if s not in not_phi] + missed
        reports.append(MarkedReport(row["id"], str(row.get("stratum", "all")), detected, truth))
    if not reports:
        raise RunError(f"{path}: no marked report")
    return reports


def read_labelstudio_marks(export: Path, sample: Path) -> list[MarkedReport]:
    """The marks of a Label Studio export of the sample: the reviewer's annotation of each task
    is the truth, the found spans those of the sample's marks file."""
    found = {r.id: r for r in read_marks(sample, require_reviewed=False)}
    try:
        annotated = read_annotations("labelstudio", Path(export))
    except AnnotationError as err:
        raise RunError(str(err)) from None
    by_id = {r.doc_id: r for r in annotated}
    missing = [i for i in found if i not in by_id]
    if missing:
        raise RunError(
            f"{export}: {len(missing)} sampled report(s) have no annotation, e.g. {missing[0]!r} "
            "(every sampled report must be reviewed)"
        )
    extra = [i for i in by_id if i not in found]
    if extra:
        raise RunError(f"{export}: task {extra[0]!r} is not in the sample {marks_path(sample)}")
    return [
        MarkedReport(r.id, r.stratum, r.detected, list(by_id[r.id].spans)) for r in found.values()
    ]
