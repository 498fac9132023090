"""`AuditLog`: appends one hash-chained JSON line at a time, safely from several threads and
processes (an exclusive `flock` on the log while the last line is read and the new one
written, then fsync)."""

import fcntl
import hashlib
import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..errors import MeddocanDeidError

AUDIT_NAME = "audit_log.jsonl"  # a run's log in its output folder
AUDIT_ENV = "MEDDOCAN_DEID_AUDIT_LOG"  # one log for every run of the command line
GENESIS = "0" * 64  # the `prev` of the first line
TAIL_CHUNK = 65_536  # bytes read back from the end to find the last line


class AuditError(MeddocanDeidError, OSError):
    """The audit log cannot be written or read (the message names the file)."""


def line_digest(line: bytes) -> str:
    """SHA-256 (hex) of one line, without its newline: the next line's `prev`."""
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def encode(entry: dict[str, Any]) -> bytes:
    """One line: sorted keys, ASCII only, no spaces (the same entry gives the same bytes)."""
    return json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


class AuditLog:
    """The log at `path` (its folder is made when needed). `append(entry)` adds `seq`, `prev`
    and `time` to the entry, writes it and returns {"log", "seq", "sha256"}: where the line is
    and its digest, for a run report to record."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._lock = threading.Lock()

    def check(self) -> None:
        """The log can be appended to (AuditError naming the file), checked before a run
        writes anything: nothing is created here (a refused run leaves no folder behind)."""
        if self.path.is_dir():
            raise AuditError(f"{self.path}: the audit log is a folder; give a file")
        if self.path.exists():
            writable = os.access(self.path, os.W_OK)
        else:
            folder = self.path.parent
            while not folder.exists() and folder != folder.parent:
                folder = folder.parent
            writable = folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)
        if not writable:
            raise AuditError(f"{self.path}: cannot write the audit log (permission denied)")

    def append(self, entry: dict[str, Any]) -> dict[str, Any]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._lock, open(self.path, "a+b") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                try:
                    last = last_line(fh)
                    seq, prev = 1, GENESIS
                    if last:
                        try:
                            seq = int(json.loads(last)["seq"]) + 1
                        except (ValueError, KeyError, TypeError):
                            # a damaged last line: chain on (verify names it), count on from it
                            seq = count_lines(fh) + 1
                        prev = line_digest(last)
                    line = encode({**entry, "seq": seq, "prev": prev, "time": utc_now()})
                    fh.seek(0, os.SEEK_END)
                    fh.write(line + b"\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)
        except OSError as err:
            raise AuditError(
                f"{self.path}: cannot append to the audit log "
                f"({err.strerror or type(err).__name__})"
            ) from None
        return {"log": str(self.path), "seq": seq, "sha256": line_digest(line)}


def last_line(fh) -> bytes:
    """The last non-empty line of an open binary file (b"" when there is none)."""
    end = fh.seek(0, os.SEEK_END)
    pos, tail = end, b""
    while pos > 0:
        step = min(TAIL_CHUNK, pos)
        pos -= step
        fh.seek(pos)
        tail = fh.read(step) + tail
        body = tail.rstrip(b"\n")
        cut = body.rfind(b"\n")
        if cut != -1:
            return body[cut + 1 :]
    return tail.rstrip(b"\n")


def count_lines(fh) -> int:
    fh.seek(0)
    return sum(1 for line in fh if line.strip())
