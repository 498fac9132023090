"""What the run report records beyond counts (the options, the gazetteer used), the
progress bar, and the lines printed about failed reports. Nothing here holds a key or text."""
import re
import sys
import threading
from enum import Enum
from pathlib import Path
from typing import Any, Dict, List

from .io import encoding_label

MAX_FAILURE_LINES = 5


def plain_options(params: Dict[str, Any]) -> Dict[str, Any]:
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
        self._bar = click.progressbar(length=total, label=label, file=sys.stderr, show_eta=True, show_pos=True)
        self._bar.__enter__()

    def update(self, n: int = 1) -> None:
        with self._lock:
            self._bar.update(n)

    def close(self) -> None:
        with self._lock:
            self._bar.__exit__(None, None, None)


def failure_lines(report: Dict[str, Any], encoding: str = "utf-8") -> List[str]:
    """Lines for stderr about failed reports (reasons name files and bytes, never text), with
    a hint about --encoding when a file could not be decoded."""
    failed = report.get("failed") or []
    lines = [f"failed: {f['reason']}" for f in failed[:MAX_FAILURE_LINES]]
    if len(failed) > MAX_FAILURE_LINES:
        lines.append(f"... and {len(failed) - MAX_FAILURE_LINES} more (see the run report)")
    undecodable = [f["reason"] for f in failed if " not valid " in f["reason"] and "(byte " in f["reason"]
                   and "JSON" not in f["reason"]]
    if undecodable:
        label = encoding_label(encoding)
        if label == "UTF-8":
            advice = ("if they come from Windows or older systems, rerun with --encoding cp1252 "
                      "(or --encoding latin-1)")
        else:
            advice = "check how they are encoded and rerun with --encoding NAME (e.g. utf-8, cp1252, latin-1)"
        n = len(undecodable)
        m = re.match(r"(.*): not valid .* \(byte (\d+)\)$", undecodable[0])
        first = f"{m.group(1)} at byte {m.group(2)}" if m else undecodable[0]
        lines.append(f"hint: {n} report{'s' if n != 1 else ''} not valid {label} (first: {first}); {advice}")
    return lines
