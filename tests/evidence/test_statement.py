"""`statement`: the release statement of a run folder, from its run report, certificate, table
risk and audit log; no report text; a sample from another run is called out."""

import hashlib
import json
from datetime import UTC, datetime

from typer.testing import CliRunner

from meddocan_deid.cli.app import app
from meddocan_deid.evidence.statement import write_statement


def _certify(sample, out):
    lines = (sample / "marks.jsonl").read_text().splitlines()
    marks = [dict(json.loads(line), reviewed=True) for line in lines]
    (sample / "marks.jsonl").write_text("".join(json.dumps(m) + "\n" for m in marks))
    r = CliRunner().invoke(app, ["certify", str(sample), "--target", "0.6"])
    assert r.exit_code == 0, r.output
    assert (out / "certificate.json").is_file()


def test_statement_without_evidence_says_so(released, tmp_path):
    _, out, _ = released
    path = write_statement(out, tmp_path / "s.md", now=datetime(2030, 1, 2, tzinfo=UTC))
    text = path.read_text()
    assert "Written 2030-01-02 00:00 UTC" in text
    assert "No residual-risk estimate" in text and "No table was measured" in text
    assert "No audit log (the folder has no audit.jsonl)." in text
    assert "| NOMBRE_SUJETO_ASISTENCIA |" in text and "replaced by its label" in text


def test_statement_with_certificate_risk_and_audit(sampled, tmp_path):
    base, out, _ = sampled
    _certify(base / "sample", out)
    (out / "table_risk.json").write_text(
        json.dumps(
            {
                "quasi_identifiers": {"age": "age", "cp": "postal_code"},
                "sensitive": "dx",
                "targets": {"k": 5},
                "before": {"k": 1, "l": 1, "rows_at_risk": 40, "rows": 40},
                "after": {"k": 6, "l": 2, "rows_suppressed": 0},
                "generalisation": {"age": "10-year bands", "cp": "first 2 digits"},
            }
        )
    )
    audit = out / "audit.jsonl"
    audit.write_text('{"n": 1, "hash": "aa11"}\n{"n": 2, "hash": "bb22"}\n')
    r = CliRunner().invoke(app, ["statement", str(out), "--out", str(tmp_path / "s.md")])
    assert r.exit_code == 0, r.output
    text = (tmp_path / "s.md").read_text()
    assert "Reports with any PHI left in clear: 0 of 6" in text and "**PASS**" in text
    assert "Warning" not in text  # the sample is this run's
    assert "After the least generalisation (age: 10-year bands, cp: first 2 digits): k = 6" in text
    digest = hashlib.sha256(audit.read_bytes()).hexdigest()
    assert f"2 entries, SHA-256 `{digest}`, last entry's hash `bb22`" in text
    assert not any(name in text for name in ("Ana", "Eva", "Luis", "Marta"))  # no text
    # a certificate of another run's sample is called out
    cert = json.loads((out / "certificate.json").read_text())
    cert["sample"]["run_digest"] = "0" * 64
    (out / "certificate.json").write_text(json.dumps(cert))
    text = write_statement(out, tmp_path / "s2.md").read_text()
    assert "**Warning:** the sample was drawn from a run whose fingerprint digest is" in text


def test_statement_of_a_folder_without_a_run_report(tmp_path):
    r = CliRunner().invoke(app, ["statement", str(tmp_path)])
    assert r.exit_code == 2 and "no run_report.json" in r.output
