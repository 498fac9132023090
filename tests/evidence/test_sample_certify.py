"""`sample` and `certify`: a seeded stratified sample of a run's reports, the reviewer's marks
(the marks file or a Label Studio export) and the estimate with its bounds and verdict."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from meddocan_deid.cli.app import app
from meddocan_deid.evidence.binomial import upper_bound
from meddocan_deid.evidence.certify import certify, is_left
from meddocan_deid.evidence.marks import MarkedReport
from meddocan_deid.evidence.sampling import allocate, draw
from meddocan_deid.evidence.targets import ReleaseTargets


def test_allocation_is_proportional_and_bounded():
    assert allocate({"a": 20, "b": 10}, 6) == {"a": 4, "b": 2}
    assert allocate({"a": 20, "b": 10}, 7) == {"a": 5, "b": 2}
    assert allocate({"a": 2, "b": 1}, 10) == {"a": 2, "b": 1}
    ids = [f"a/{i}" for i in range(20)] + [f"b/{i}" for i in range(10)]
    first = draw(ids, 6, seed=7, types={})
    assert first == draw(ids, 6, seed=7, types={})
    assert first != draw(ids, 6, seed=8, types={})
    assert sorted(s for _, s in first) == ["a", "a", "a", "a", "b", "b"]


def test_sample_writes_marks_labelstudio_and_review_pages(sampled):
    base, out, private = sampled
    sample = base / "sample"
    record = json.loads((sample / "sample.json").read_text())
    assert record["n"] == 6 and record["population"] == 30
    assert record["strata"] == {
        "alta": {"population": 20, "sampled": 4},
        "urgencias": {"population": 10, "sampled": 2},
    }
    assert record["run_digest"]
    marks = [json.loads(line) for line in (sample / "marks.jsonl").read_text().splitlines()]
    assert [m["id"] for m in marks] == record["ids"]
    assert all(m["detected"] and m["reviewed"] is False for m in marks)
    tasks = json.loads((sample / "labelstudio.json").read_text())
    assert [t["data"]["doc_id"] for t in tasks] == record["ids"]
    assert len(list((sample / "review" / "reports").glob("*.html"))) == 6


def test_sample_refuses_a_folder_inside_the_output(released):
    base, out, private = released
    r = CliRunner().invoke(
        app,
        ["sample", str(out), "--private-dir", str(private), "--out", str(out / "s"), "--seed", "1"],
    )
    assert r.exit_code == 2 and "must not be the output folder" in r.output


def _mark(sample: Path, missed_in: int, reviewed: bool = True) -> list[dict]:
    """Mark every sampled report as reviewed; the `missed_in`-th gets a missed name."""
    marks = [json.loads(line) for line in (sample / "marks.jsonl").read_text().splitlines()]
    for i, m in enumerate(marks):
        m["reviewed"] = reviewed
        m["missed"] = [["NOMBRE_PERSONAL_SANITARIO", 0, 6]] if i == missed_in else []
    (sample / "marks.jsonl").write_text("".join(json.dumps(m) + "\n" for m in marks))
    return marks


def test_certify_counts_the_marks_bounds_and_fails_the_target(sampled):
    base, out, private = sampled
    sample = base / "sample"
    _mark(sample, missed_in=2)
    r = CliRunner().invoke(app, ["certify", str(sample), "--target", "0.05"])
    assert r.exit_code == 1, r.output  # 1 of 6: the bound is far above 5%
    assert "reports with PHI left: 1 of 6" in r.output
    assert f"{upper_bound(1, 6):.2%}" in r.output and "FAIL" in r.output
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["reports_with_phi"] == 1 and cert["by_label"]["NOMBRE_PERSONAL_SANITARIO"] == {
        "mentions": 1,
        "left": 1,
    }
    assert cert["sample"]["seed"] == 11 and cert["needed_if_clean"] == 59
    # a lenient target passes (exit 0)
    r = CliRunner().invoke(app, ["certify", str(sample), "--target", "0.9"])
    assert r.exit_code == 0 and "PASS" in r.output


def test_certify_reads_a_labelstudio_export_the_same(sampled):
    base, out, private = sampled
    sample = base / "sample"
    marks = _mark(sample, missed_in=2)
    tasks = json.loads((sample / "labelstudio.json").read_text())
    for t in tasks:  # the reviewer accepts the predictions, and adds the missed name in one
        result = list(t["predictions"][0]["result"])
        if t["data"]["doc_id"] == marks[2]["id"]:
            text = t["data"]["text"]
            result.append(
                {
                    "type": "labels",
                    "value": {"start": 0, "end": 6, "text": text[:6], "labels": ["HOSPITAL"]},
                }
            )
        t["annotations"] = [{"result": result}]
    export = base / "export.json"
    export.write_text(json.dumps(tasks))
    r = CliRunner().invoke(
        app, ["certify", str(sample), "--labelstudio", str(export), "--out", str(base / "c.json")]
    )
    assert "reports with PHI left: 1 of 6" in r.output
    assert json.loads((base / "c.json").read_text())["by_label"]["HOSPITAL"]["left"] == 1
    del tasks[0]["annotations"]
    export.write_text(json.dumps(tasks))
    r = CliRunner().invoke(app, ["certify", str(sample), "--labelstudio", str(export)])
    assert r.exit_code == 2 and "have no annotation" in r.output


def test_certify_refuses_unreviewed_reports_by_line(sampled):
    base, _, _ = sampled
    sample = base / "sample"
    _mark(sample, missed_in=-1, reviewed=False)
    r = CliRunner().invoke(app, ["certify", str(sample)])
    assert r.exit_code == 2 and "marks.jsonl:1: report" in r.output and "not reviewed" in r.output


def test_a_mention_found_in_part_is_left():
    assert not is_left(("N", 0, 11), [("N", 0, 4), ("N", 5, 11)])  # a space between two parts
    assert is_left(("N", 0, 11), [("N", 0, 4)])
    assert is_left(("N", 0, 11), [("N", 2, 11)])
    assert not is_left(("N", 3, 8), [("N", 0, 20)])
    reports = [
        MarkedReport("a", "all", [("N", 0, 4)], [("N", 0, 4), ("F", 10, 20)]),
        MarkedReport("b", "all", [("N", 0, 4)], [("N", 0, 4)]),
    ]
    cert = certify(reports, ReleaseTargets(max_reports_with_phi=0.5, max_mentions_left=0.9))
    assert (cert.reports_with_phi, cert.mentions, cert.mentions_left) == (1, 3, 1)
    assert cert.report_bound == pytest.approx(upper_bound(1, 2)) and not cert.passed


def test_types_file_sets_the_strata_and_a_bad_line_is_named(released, tmp_path):
    base, out, private = released
    types = tmp_path / "types.tsv"
    types.write_text(
        "# id\ttype\n" + "".join(f"alta/r{i:02d}\tinforme\n" for i in range(10)),
        encoding="utf-8",
    )
    r = CliRunner().invoke(
        app,
        ["sample", str(out), "--private-dir", str(private), "--out", str(tmp_path / "s")]
        + ["--n", "6", "--seed", "3", "--types", str(types)],
    )
    assert r.exit_code == 0, r.output
    strata = json.loads((tmp_path / "s" / "sample.json").read_text())["strata"]
    assert {s: v["population"] for s, v in strata.items()} == {
        "alta": 10,
        "informe": 10,
        "urgencias": 10,
    }
    types.write_text("alta/r00 informe\n", encoding="utf-8")
    r = CliRunner().invoke(
        app,
        ["sample", str(out), "--private-dir", str(private), "--out", str(tmp_path / "s2")]
        + ["--seed", "3", "--types", str(types)],
    )
    assert r.exit_code == 2 and "types.tsv:1: expected `id<TAB>type`" in r.output


@pytest.mark.parametrize("command", ["sample", "certify", "risk", "statement"])
def test_help_fits_80_columns(command):
    r = CliRunner().invoke(app, [command, "--help"], terminal_width=80)
    assert r.exit_code == 0 and "…" not in r.output
    assert max(len(line) for line in r.output.splitlines()) <= 80


def test_the_policy_sets_the_target_and_is_recorded(sampled, tmp_path):
    base, out, _ = sampled
    sample = base / "sample"
    _mark(sample, missed_in=0)
    policy = tmp_path / "policy.toml"
    policy.write_text("[release]\nmax_reports_with_phi = 0.7\nconfidence = 0.9\n")
    r = CliRunner().invoke(app, ["certify", str(sample), "--policy", str(policy)])
    assert r.exit_code == 0 and "one-sided 90% upper bound" in r.output and "PASS" in r.output
    cert = json.loads((out / "certificate.json").read_text())
    assert cert["target"] == 0.7 and cert["report_bound"] == pytest.approx(upper_bound(1, 6, 0.9))
    assert len(cert["policy"]["digest"]) == 64
    policy.write_text("[release]\nmax_reports_with_phi = 7\n")
    r = CliRunner().invoke(app, ["certify", str(sample), "--policy", str(policy)])
    assert r.exit_code == 2 and "release.max_reports_with_phi: expected a share" in r.output
