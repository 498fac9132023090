"""The release statement of a run folder: one Markdown page a data protection officer reads
and signs, made from what the folder records (no report text, no key):

- the run: its input and output, mode, fingerprint digest, library, model, policy digest;
- what was removed and how: the PHI found per label and the operator each label got;
- the model's scores as its meta.json records them (held-out dev split);
- the residual-risk estimate (`certificate.json`, from `certify`) and the table risk
  (`table_risk.json`, from `risk --out`), each when the folder has it;
- the audit log (`audit.jsonl`): its SHA-256, lines and last entry's hash, or "no audit log";
- the known limits.
"""

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import spacy.util

from ..errors import RunError
from ..files import atomic_write
from .sampling import run_digest

REPORT_FILE = "run_report.json"
CERTIFICATE_FILE = "certificate.json"
RISK_FILE = "table_risk.json"
AUDIT_FILE = "audit.jsonl"
STATEMENT_FILE = "statement.md"
OPERATOR_WORDS = {
    "surrogate": "replaced by an invented value of the same kind (surrogate)",
    "tag": "replaced by its label",
    "mask": "masked",
    "redact": "removed",
    "keep": "kept in clear (policy)",
}
LIMITS = (
    "The model's scores are measured on the MEDDOCAN dev split and on invented sets, not on "
    "this hospital's reports; the residual-risk estimate below is the measure of this release.",
    "The estimate is as good as the review: a PHI mention the reviewer did not see is not "
    "counted. The upper bound is exact for a simple random sample; a stratified sample is "
    "treated as self-weighting, and the finite population is ignored (both conservative or "
    "close to it). Mentions of one report are not independent: the mentions' bound is "
    "indicative.",
    "A surrogate keeps the text readable; a value the pipeline did not find stays in clear "
    "beside invented ones, and nothing in the output marks which is which.",
    "Quasi-identifiers kept on purpose (age, sex, dates, places) can single a patient out "
    "together; the table risk covers the table measured, not the free text of the reports.",
    "The statement reads the files of the run folder; it proves nothing about files changed "
    "after they were written unless the audit log's chain is verified.",
)


def _read_json(path: Path, what: str) -> dict | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise RunError(f"{path}: {what} is not valid JSON") from None
    if not isinstance(data, dict):
        raise RunError(f"{path}: {what} is not a JSON object")
    return data


def model_meta(model: str | None) -> dict | None:
    """The meta.json of a pipeline folder, or of an installed spaCy package; None if neither."""
    if not model:
        return None
    candidates = [Path(model) / "meta.json"]
    try:
        package = spacy.util.get_package_path(model)
        candidates += sorted(package.glob("*/meta.json")) + [package / "meta.json"]
    except Exception:  # noqa: BLE001 - not an installed package: no meta from there
        pass
    for path in candidates:
        if path.is_file():
            try:
                return json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
    return None


def audit_digest(path: Path) -> dict | None:
    """The SHA-256 of the audit log, its lines and the last entry's own hash (if it has one)."""
    if not path.is_file():
        return None
    raw = path.read_bytes()
    lines = [ln for ln in raw.decode("utf-8", errors="replace").splitlines() if ln.strip()]
    last_hash = None
    if lines:
        try:
            last = json.loads(lines[-1])
            last_hash = next(
                (
                    last[k]
                    for k in ("hash", "digest", "entry_hash")
                    if isinstance(last, dict) and k in last
                ),
                None,
            )
        except ValueError:
            last_hash = None
    return {"sha256": hashlib.sha256(raw).hexdigest(), "lines": len(lines), "last_hash": last_hash}


def _pct(value) -> str:
    return f"{value:.2%}" if isinstance(value, (int, float)) else "n/a"


def _removed(report: dict) -> list[str]:
    options = report.get("options") or {}
    modes = options.get("label_modes") or {}
    mode = report.get("mode", "?")
    per_label = report.get("phi_per_label") or {}
    out = ["| Label | PHI found | How |", "|---|---:|---|"]
    for label, count in sorted(per_label.items(), key=lambda kv: (-kv[1], kv[0])):
        how = modes.get(label, mode)
        out.append(f"| {label} | {count} | {OPERATOR_WORDS.get(how, how)} |")
    if not per_label:
        out.append("| (none) | 0 | |")
    return out


def _scores(meta: dict | None) -> list[str]:
    if meta is None:
        return ["The model's meta.json was not found: no scores to report."]
    perf = meta.get("performance") or {}
    rows = [
        (name, perf[key])
        for name, key in (
            ("MEDDOCAN subtrack 1 precision", "meddocan_s1_p"),
            ("MEDDOCAN subtrack 1 recall", "meddocan_s1_r"),
            ("MEDDOCAN subtrack 1 F1", "meddocan_s1_f"),
            ("MEDDOCAN leak (share of PHI tokens missed)", "meddocan_s1_leak"),
            ("entity precision", "ents_p"),
            ("entity recall", "ents_r"),
            ("entity F1", "ents_f"),
        )
        if isinstance(perf.get(key), (int, float))
    ]
    name = f"{meta.get('lang', '')}_{meta.get('name', '')} {meta.get('version', '')}"
    if not rows:
        return [
            f"Model {name}: its meta.json records no scores (an assembled pipeline; give "
            "`--model` the packaged pipeline, or its NER model, whose meta.json has them)."
        ]
    out = [
        f"Model {name}; scores as its meta.json records them (held-out dev split):",
        "",
        "| Measure | Value |",
        "|---|---:|",
        *[f"| {name} | {_pct(value)} |" for name, value in rows],
    ]
    per_type = perf.get("ents_per_type") or {}
    weak = sorted(
        ((label, s.get("r")) for label, s in per_type.items() if isinstance(s.get("r"), float)),
        key=lambda kv: kv[1],
    )[:5]
    if weak:
        out += ["", "Lowest recall by label: " + ", ".join(f"{lb} {_pct(r)}" for lb, r in weak)]
    return out


def _certificate(cert: dict | None, run_fingerprint: str | None) -> list[str]:
    if cert is None:
        return [
            "No residual-risk estimate: run `meddocan-deid sample` and `certify` on this run "
            "(the folder has no certificate.json)."
        ]
    conf = f"{cert.get('confidence', 0.95):.0%}"
    sample = cert.get("sample") or {}
    out = [
        f"A random sample of {cert['reports']} of {sample.get('population', '?')} reports "
        f"(seed {sample.get('seed', '?')}) was reviewed.",
        "",
        f"- Reports with any PHI left in clear: {cert['reports_with_phi']} of {cert['reports']} "
        f"({_pct(cert['report_share'])}); one-sided {conf} upper bound "
        f"**{_pct(cert['report_bound'])}**.",
        f"- PHI mentions left: {cert['mentions_left']} of {cert['mentions']} "
        f"({_pct(cert['mention_share'])}); upper bound {_pct(cert.get('mention_bound'))}.",
        f"- Target: upper bound at most {_pct(cert['target'])} of reports: "
        f"**{'PASS' if cert['passed'] else 'FAIL'}**.",
        f"- Sample needed for that target with no report leaking: {cert.get('needed_if_clean')}.",
    ]
    left = {lb: c for lb, c in (cert.get("by_label") or {}).items() if c.get("left")}
    if left:
        out.append(
            "- Left by label: "
            + ", ".join(f"{lb} {c['left']}/{c['mentions']}" for lb, c in left.items())
        )
    digest = sample.get("run_digest")
    if digest != run_fingerprint:
        out.append(
            f"- **Warning:** the sample was drawn from a run whose fingerprint digest is "
            f"`{digest}`, not this run's: the estimate is not this release's."
        )
    return out


def _risk(risk: dict | None) -> list[str]:
    if risk is None:
        return ["No table was measured (the folder has no table_risk.json)."]
    b, a = risk["before"], risk.get("after")
    qi = ", ".join(f"{c} ({k})" for c, k in risk["quasi_identifiers"].items())
    out = [
        f"Quasi-identifiers: {qi}; sensitive column: {risk.get('sensitive') or 'none'}.",
        "",
        f"- Before: k = {b['k']}, l = {b.get('l')}; {b['rows_at_risk']} of {b['rows']} rows in "
        f"classes of fewer than {risk['targets']['k']}.",
    ]
    if a is None:
        out.append("- No generalisation of the policy's ladders reaches the target.")
    else:
        used = ", ".join(f"{c}: {lvl}" for c, lvl in risk["generalisation"].items())
        out.append(
            f"- After the least generalisation ({used}): k = {a['k']}, l = {a.get('l')}; "
            f"{a['rows_suppressed']} rows withheld."
        )
    return out


def _audit(audit: dict | None) -> list[str]:
    if audit is None:
        return ["No audit log (the folder has no audit.jsonl)."]
    return [
        f"`audit.jsonl`: {audit['lines']} entries, SHA-256 `{audit['sha256']}`"
        + (f", last entry's hash `{audit['last_hash']}`" if audit["last_hash"] else "")
        + ". Verify its chain with `meddocan-deid audit verify` before signing."
    ]


def write_statement(
    run_dir: Path, out: Path | None = None, model: str | None = None, now: datetime | None = None
) -> Path:
    """Write the statement of `run_dir` (default: RUN_DIR/statement.md); returns its path."""
    run_dir = Path(run_dir)
    report = _read_json(run_dir / REPORT_FILE, "the run report")
    if report is None:
        raise RunError(f"{run_dir}: no {REPORT_FILE} (not the output folder of a finished run)")
    cert = _read_json(run_dir / CERTIFICATE_FILE, "the certificate")
    risk = _read_json(run_dir / RISK_FILE, "the table risk")
    options = report.get("options") or {}
    meta = model_meta(model or options.get("model"))
    fingerprint = run_digest(run_dir)
    counts = report.get("reports") or report.get("rows") or {}
    model_info = report.get("model") or {}
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Release statement",
        "",
        f"Written {stamp} by meddocan-deid {report.get('library_version', '?')} from the files "
        f"of `{run_dir}`. It holds no report text.",
        "",
        "## The run",
        "",
        f"- Input: `{report.get('input')}`; output: `{report.get('output')}`.",
        f"- Mode: {report.get('mode')}; model: {model_info.get('name')} "
        f"{model_info.get('version')}.",
        "- Reports: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".",
        f"- Run fingerprint digest: `{fingerprint or 'none'}`; policy digest: "
        f"`{(report.get('fingerprint') or {}).get('policy_digest', 'none')}`.",
        "",
        "## What was removed and how",
        "",
        *_removed(report),
        "",
        "## The model",
        "",
        *_scores(meta),
        "",
        "## PHI left in this release (residual risk)",
        "",
        *_certificate(cert, fingerprint),
        "",
        "## Re-identification risk of the table",
        "",
        *_risk(risk),
        "",
        "## Audit trail",
        "",
        *_audit(audit_digest(run_dir / AUDIT_FILE)),
        "",
        "## Known limits",
        "",
        *[f"- {limit}" for limit in LIMITS],
        "",
        "Signed: ______________________ (data protection officer)   Date: __________",
    ]
    dest = Path(out) if out is not None else run_dir / STATEMENT_FILE
    atomic_write(dest, "\n".join(lines) + "\n")
    return dest
