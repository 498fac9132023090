"""`verify_log`: walk an audit log and name every line where the chain breaks.

Each line's `seq` is the one after the line above it, and its `prev` is the SHA-256 of the line
of the seq before. A seq that is missing is a removed line; a seq that goes down between two
lines names both of them as moved; a line whose `prev` is not the digest of the line of the
seq before names that line as edited. An edit of the last line shows against a digest recorded
elsewhere: `verify_target` on a run's output folder checks the line its run report records.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from .chain import AUDIT_NAME, GENESIS, AuditError, line_digest

REPORT_NAME = "run_report.json"


@dataclass
class VerifyResult:
    """The log checked, its lines, the digest of its last line and the problems (each names
    its line); `ok` when there are none."""

    log: Path
    lines: int = 0
    head: str = GENESIS
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_log(path: Path | str) -> VerifyResult:
    """Check the chain of the log at `path` (AuditError when it cannot be read)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise AuditError(
            f"{path}: cannot read the audit log ({err.strerror or type(err).__name__})"
        ) from None
    result = VerifyResult(path)
    # (file line, seq, prev, digest) of every entry
    entries: list[tuple[int, int, str, str]] = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            result.problems.append(f"line {number}: empty (a line was cut or removed)")
            continue
        result.lines += 1
        result.head = line_digest(line)
        seq, prev = _seq_prev(line)
        if seq is None or prev is None:
            result.problems.append(f"line {number}: not an audit entry (edited)")
            continue
        entries.append((number, seq, prev, result.head))
    result.problems.extend(_order_problems(entries))
    result.problems.extend(_chain_problems(entries))
    if raw and not raw.endswith(b"\n"):
        result.problems.append(f"line {result.lines}: cut short (no end of line)")
    return result


def _order_problems(entries: list[tuple[int, int, str, str]]) -> list[str]:
    """Lines out of order (a seq above the next one's or below the one before), seqs that
    appear twice, and seqs missing (removed lines)."""
    problems: list[str] = []
    seqs = [seq for _, seq, _, _ in entries]
    for i, (number, seq, _, _) in enumerate(entries):
        if seq in seqs[:i]:
            problems.append(f"line {number}: seq {seq} appears again (a copied line)")
        elif (i + 1 < len(seqs) and seq > seqs[i + 1]) or (i > 0 and seq < seqs[i - 1]):
            problems.append(f"line {number}: seq {seq} is out of order (lines moved)")
    present = set(seqs)
    for seq in range(1, max(seqs, default=0) + 1):
        if seq not in present:
            after = [number for number, s, _, _ in entries if s < seq]
            where = f"after line {max(after)}" if after else "before line 1"
            problems.append(f"seq {seq} is missing {where}: its line was removed")
    return problems


def _chain_problems(entries: list[tuple[int, int, str, str]]) -> list[str]:
    """Lines whose `prev` is not the digest of the line of the seq before theirs: that line
    was edited (the first line: its `prev` is not the start of a chain)."""
    problems: list[str] = []
    by_seq = {seq: (number, digest) for number, seq, _, digest in reversed(entries)}
    for number, seq, prev, _ in entries:
        if seq == 1 and prev != GENESIS:
            problems.append(f"line {number}: seq 1 does not start a chain (edited)")
        elif seq - 1 in by_seq and prev != by_seq[seq - 1][1]:
            above = by_seq[seq - 1][0]
            problems.append(
                f"line {above} (seq {seq - 1}) was edited: line {number} does not chain to it"
            )
    return problems


def _seq_prev(line: bytes) -> tuple[int | None, str | None]:
    try:
        entry = json.loads(line)
    except ValueError:
        return None, None
    if not isinstance(entry, dict):
        return None, None
    seq, prev = entry.get("seq"), entry.get("prev")
    return (
        seq if isinstance(seq, int) and seq >= 1 else None,
        prev if isinstance(prev, str) else None,
    )


def verify_target(target: Path | str) -> VerifyResult:
    """Verify a log, or a run's output folder: its log (OUTPUT/audit_log.jsonl, else the one its
    run report names), and the line the run report records (its seq and digest)."""
    target = Path(target)
    if not target.exists():
        raise AuditError(f"{target}: not found (give a run's output folder or an audit log)")
    if not target.is_dir():
        return verify_log(target)
    anchor = _report_anchor(target / REPORT_NAME)
    log = target / AUDIT_NAME
    if not log.exists() and anchor is not None:
        log = Path(anchor["log"])
    if not log.exists():
        raise AuditError(f"{target}: no {AUDIT_NAME} here and no audit log named by a run report")
    result = verify_log(log)
    if anchor is not None:
        lines = [ln for ln in log.read_bytes().splitlines() if ln.strip()]
        found = [(n, ln) for n, ln in enumerate(lines, start=1) if _seq_of(ln) == anchor["seq"]]
        if not found:
            result.problems.append(
                f"{REPORT_NAME}: its run's line (seq {anchor['seq']}) is not in the log (removed)"
            )
        elif all(line_digest(ln) != anchor["sha256"] for _, ln in found):
            result.problems.append(
                f"line {found[0][0]}: seq {anchor['seq']} differs from the line the run report "
                "records (edited)"
            )
    return result


def _report_anchor(path: Path) -> dict | None:
    """The `audit` record of a run report ({"log", "seq", "sha256"}), None when there is none."""
    if not path.is_file():
        return None
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise AuditError(f"{path}: cannot read the run report") from None
    anchor = report.get("audit") if isinstance(report, dict) else None
    if not isinstance(anchor, dict) or not {"log", "seq", "sha256"} <= set(anchor):
        return None
    return anchor


def _seq_of(line: bytes) -> int | None:
    return _seq_prev(line)[0]
