"""What the run report records beyond counts (the options, the gazetteer used), the
progress bar, and the lines printed about failed reports. Nothing here holds a key or text."""

import re
import sys
import threading
from enum import Enum
from pathlib import Path
from typing import Any

from ..formats.encodings import encoding_label

MAX_FAILURE_LINES = 5


def plain_options(params: dict[str, Any]) -> dict[str, Any]:
    """Command-line options as JSON data (paths as strings, enums as values)."""

    def plain(v):
        if isinstance(v, Enum):
            return v.value
        if isinstance(v, Path):
            return str(v)
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        return v if v is None or isinstance(v, (str, int, float, bool)) else str(v)

    return {name: plain(value) for name, value in params.items()}


class Progress:
    """A progress bar on stderr with a total and an ETA (click's), safe to update from the
    thread that feeds worker processes."""

    def __init__(self, total: int, label: str = "de-identifying"):
        import click

        self._lock = threading.Lock()
        self._bar = click.progressbar(
            length=total, label=label, file=sys.stderr, show_eta=True, show_pos=True
        )
        self._bar.__enter__()

    def update(self, n: int = 1) -> None:
        with self._lock:
            self._bar.update(n)

    def close(self) -> None:
        with self._lock:
            self._bar.__exit__(None, None, None)


def failure_reason(where: str, reason: str) -> str:
    """`reason` led by the file (and line) it is about, `where`, unless it already names it:
    every failure line names its file (`sub/informe_3.txt: empty text`)."""
    if not where or reason == where or reason.startswith(where + ":"):
        return reason
    return f"{where}: {reason}"


def failure_lines(report: dict[str, Any], encoding: str = "utf-8") -> list[str]:
    """Lines for stderr about failed reports (reasons name files and bytes, never text), with
    a hint about --encoding when a file could not be decoded."""
    failed = report.get("failed") or []
    lines = [
        f"failed: {failure_reason(f.get('file', ''), f['reason'])}"
        for f in failed[:MAX_FAILURE_LINES]
    ]
    if len(failed) > MAX_FAILURE_LINES:
        lines.append(f"... and {len(failed) - MAX_FAILURE_LINES} more (see the run report)")
    undecodable = [
        f["reason"]
        for f in failed
        if " not valid " in f["reason"] and "(byte " in f["reason"] and "JSON" not in f["reason"]
    ]
    if undecodable:
        label = encoding_label(encoding)
        n = len(undecodable)
        m = re.match(r"(.*): not valid .* \(byte (\d+)\)$", undecodable[0])
        first = f"{m.group(1)} at byte {m.group(2)}" if m else undecodable[0]
        # each file is read as UTF-8 when it is UTF-8, else in its detected encoding; --encoding
        # is the fallback for a file whose encoding the detection is not sure of
        what = (
            f"report{'s' if n != 1 else ''} not valid UTF-8 nor of an encoding detected with "
            "confidence"
        )
        if label == "UTF-8":
            advice = (
                "if they come from Windows or older systems, rerun with --encoding cp1252 "
                "(or --encoding latin-1), the encoding used when the detection is not sure"
            )
        else:
            what += f", and not valid {label} (--encoding) either"
            advice = (
                "check how they are encoded and rerun with --encoding NAME (e.g. utf-8, cp1252, "
                "latin-1)"
            )
        lines.append(f"hint: {n} {what} (first: {first}); {advice}")
    return lines


def table_failure_lines(report: dict[str, Any], limit: int = MAX_FAILURE_LINES) -> list[str]:
    """Lines for stderr about failed rows (file, line, id and reason; never a cell value)."""
    failed = report.get("failed") or []
    lines = [
        f"failed: {f['where']}{' (id ' + str(f['id']) + ')' if 'id' in f else ''}: {f['reason']}"
        for f in failed[:limit]
    ]
    if report["rows"]["failed"] > limit:
        lines.append(f"... and {report['rows']['failed'] - limit} more (see the run report)")
    return lines


def not_read_lines(report: dict[str, Any]) -> list[str]:
    """Lines for stderr about the input's files that were not read (file and reason)."""
    entries = report.get("not_read") or []
    lines = [f"not read: {e['file']}: {e['reason']}" for e in entries[:MAX_FAILURE_LINES]]
    if len(entries) > MAX_FAILURE_LINES:
        lines.append(
            f"... and {len(entries) - MAX_FAILURE_LINES} more not read (see the run report)"
        )
    return lines
