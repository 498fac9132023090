"""A run's audit line: who ran it and when, with which settings (mode, policy digest, model,
key fingerprint), on which input and into which output (digests of the files, never their
names or text), the counts and the outcome."""

import getpass
import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..deid import fingerprint as fp
from .chain import AUDIT_ENV, AUDIT_NAME, AuditLog

CHUNK = 1 << 20


def run_log(config) -> AuditLog | None:
    """The log of a run: the config's `audit_log`, else the environment's MEDDOCAN_DEID_AUDIT_LOG,
    else OUTPUT/audit_log.jsonl (a Spark run: beside its --report; none without one, since
    Spark's OUTPUT holds only what Spark writes)."""
    path = config.audit_log or os.environ.get(AUDIT_ENV) or None
    if path is None:
        if config.spark is not None:
            if config.report_path is None:
                return None
            return AuditLog(Path(config.report_path).parent / AUDIT_NAME)
        return AuditLog(Path(config.output) / AUDIT_NAME)
    return AuditLog(Path(path))


def operator() -> str:
    """Who runs the command: the login name (a number when the system has none)."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid:{os.getuid()}"


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def folder_digest(folder: Path, skip: frozenset[str]) -> str:
    """SHA-256 of the sorted (relative path, SHA-256 of the bytes) of every file of an output
    folder but its bookkeeping (`skip`: the run's own files) and temporary files."""
    folder = Path(folder)
    files = sorted(
        p
        for p in folder.rglob("*")
        if p.is_file() and p.name not in skip and not p.name.endswith(".tmp")
    )
    return fp.digest_of([[p.relative_to(folder).as_posix(), file_digest(p)] for p in files])


def inputs_digest(digests: Mapping[str, str]) -> str:
    """SHA-256 of the input digests recorded in an output folder (one per report written)."""
    return fp.digest_of(sorted(digests.items()))


def settings_of(run) -> dict[str, Any]:
    """The settings a run's line records (no key, no path)."""
    c, meta = run.config, getattr(run.nlp, "meta", None) or {}
    model = {
        "name": f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_") or str(c.model),
        "version": meta.get("version"),
    }
    return {
        "event": "run",
        "user": operator(),
        "mode": c.mode,
        "policy_digest": c.run_policy_digest,
        "model": model,
        "key_fingerprint": fp.key_fingerprint(c.key),
        "privacy": c.run_privacy,
        "library_version": run.fingerprint.get("library_version") if run.fingerprint else None,
    }


def run_entry(
    run, report, *, bookkeeping: frozenset[str], input_digests: Mapping[str, str]
) -> dict[str, Any]:
    """The line of a run that ended with its run report; `bookkeeping`: the names of the output
    folder's own files (left out of its digest), `input_digests`: the digests of the inputs it
    recorded (the engine's, which imports this module)."""
    c = run.config
    entry = settings_of(run)
    entry.update(kind=report.kind, seconds=round(report.seconds, 3), outcome=outcome(report))
    entry["model"] = report.model
    entry["library_version"] = report.library_version
    if report.kind == "reports":
        entry.update(
            counts=dict(report.counts),
            input_sha256=inputs_digest(input_digests),
            output_sha256=folder_digest(Path(c.output), bookkeeping),
        )
    elif report.kind == "table":
        entry.update(
            counts=dict(report.rows or {}),
            input_sha256=file_digest(Path(c.input)),
            output_sha256=file_digest(Path(report.table)) if report.table else None,
        )
    else:  # Spark: the files are Spark's, on its file systems
        entry.update(counts=dict(report.rows or {}), input_sha256=None, output_sha256=None)
    entry["phi_per_label"] = dict(sorted(report.phi_per_label.items()))
    return entry


def error_entry(run, err: BaseException) -> dict[str, Any]:
    """The line of a run stopped by an error after it started writing."""
    entry = settings_of(run)
    kind = "spark" if run.config.spark else "table" if run.config.table else "reports"
    what = "interrupted" if isinstance(err, KeyboardInterrupt) else type(err).__name__
    entry.update(kind=kind, counts=dict(run.counts), outcome=f"error: {what}")
    return entry


def outcome(report) -> str:
    if report.rows_lost:
        return "failed: rows lost"
    if report.n_failed:
        what = "rows" if report.kind in ("table", "spark") else "reports"
        return f"failed: {report.n_failed} {what}"
    return "ok"
