"""Helpers of the tests that run `meddocan-deid` as a user does: the command in a child
process, the files a run wrote, and the counts its run report holds."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
# files of an output folder that differ from run to run (times, paths) or record the run
RUN_RECORDS = ("run_report.json", "run_fingerprint.json", "audit_log.jsonl")


def cli(*args, env=None, timeout=180, **kwargs) -> subprocess.CompletedProcess:
    """`python -m meddocan_deid ARGS` from the repository root, without the caller's key and
    terminal width (`env` adds variables); its output captured as text."""
    full_env = {k: v for k, v in os.environ.items() if k not in ("MEDDOCAN_DEID_KEY", "COLUMNS")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "meddocan_deid", *map(str, args)],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
        cwd=ROOT,
        **kwargs,
    )


def outputs(folder: Path) -> dict[str, bytes]:
    """Every file a run wrote under `folder` with its bytes, but the run's records."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in RUN_RECORDS
    }


def report_counts(
    read: int, written: int, skipped: int = 0, failed: int = 0, empty: int = 0, not_read: int = 0
) -> dict[str, int]:
    """The `reports` counts of a run report."""
    return {
        "read": read,
        "written": written,
        "skipped": skipped,
        "failed": failed,
        "empty": empty,
        "not_read": not_read,
    }
