"""The audit log's hash chain: appended lines chain, verify names an edited, removed or
reordered line, a run's output folder is checked against the line its run report records, and
threads appending at once keep the chain whole. Invented values only."""

import json
import threading

import pytest

from meddocan_deid.audit import GENESIS, AuditError, AuditLog, line_digest, verify_target
from meddocan_deid.cli.app import main
from meddocan_deid.engine import RunConfig
from meddocan_deid.engine.runner import Run

NOTE = "Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n"


def write_log(path, n=5):
    log = AuditLog(path)
    for i in range(n):
        log.append({"event": "run", "counts": {"read": i}})
    return path.read_bytes().splitlines(keepends=True)


def rewrite(path, lines):
    path.write_bytes(b"".join(lines))


def test_lines_chain_from_genesis(tmp_path):
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, 3)
    entries = [json.loads(line) for line in lines]
    assert [e["seq"] for e in entries] == [1, 2, 3]
    assert entries[0]["prev"] == GENESIS
    assert entries[1]["prev"] == line_digest(lines[0])
    assert entries[2]["prev"] == line_digest(lines[1])
    result = verify_target(path)
    assert result.ok and result.lines == 3 and result.head == line_digest(lines[2])


def test_an_edited_line_is_named(tmp_path):
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[2] = lines[2].replace(b'"read":2', b'"read":9')
    rewrite(path, lines)
    result = verify_target(path)
    assert result.problems == ["line 3 (seq 3) was edited: line 4 does not chain to it"]


def test_a_removed_line_is_named(tmp_path):
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    del lines[2]
    rewrite(path, lines)
    (problem,) = verify_target(path).problems
    assert problem == "seq 3 is missing after line 2: its line was removed"


def test_the_first_line_removed_is_named(tmp_path):
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    rewrite(path, lines[1:])
    (problem,) = verify_target(path).problems
    assert problem == "seq 1 is missing before line 1: its line was removed"


def test_swapped_lines_are_named(tmp_path):
    path = tmp_path / "audit.jsonl"
    lines = write_log(path)
    lines[1], lines[2] = lines[2], lines[1]
    rewrite(path, lines)
    assert verify_target(path).problems == [
        "line 2: seq 3 is out of order (lines moved)",
        "line 3: seq 2 is out of order (lines moved)",
    ]


def test_a_line_that_is_no_entry_is_named(tmp_path):
    path = tmp_path / "audit.jsonl"
    lines = write_log(path, 3)
    lines[1] = b"not json\n"
    rewrite(path, lines)
    problems = verify_target(path).problems
    assert problems[0] == "line 2: not an audit entry (edited)"


def test_threads_appending_at_once_keep_the_chain(tmp_path):
    path = tmp_path / "audit.jsonl"
    logs = [AuditLog(path) for _ in range(4)]  # as separate workers would hold
    threads = [
        threading.Thread(target=lambda log=log: [log.append({"n": i}) for i in range(25)])
        for log in logs
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result = verify_target(path)
    assert result.ok and result.lines == 100


def test_a_folder_as_the_log_is_refused(tmp_path):
    with pytest.raises(AuditError, match="is a folder"):
        AuditLog(tmp_path).check()


# -- runs ------------------------------------------------------------------------------------


def run(nlp, inp, out, **kw):
    config = RunConfig(input=inp, output=out, mode="tag", progress=False, **kw)
    return Run(config, nlp=nlp).execute_report()


@pytest.fixture
def two_runs(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.txt").write_text(NOTE, encoding="utf-8")
    (inp / "b.txt").write_text(NOTE.replace("Ana", "Eva"), encoding="utf-8")
    out = tmp_path / "out"
    run(rule_nlp, inp, out)
    report = run(rule_nlp, inp, out, overwrite=True)
    return out, report


def test_a_run_leaves_its_line_in_its_output_folder(two_runs):
    out, report = two_runs
    log = out / "audit_log.jsonl"
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 2 and report.audit["seq"] == 2
    second = entries[1]
    assert second["event"] == "run" and second["outcome"] == "ok" and second["mode"] == "tag"
    assert second["counts"]["written"] == 2 and second["key_fingerprint"] == "none"
    assert second["phi_per_label"]["NOMBRE_SUJETO_ASISTENCIA"] == 4
    assert entries[0]["output_sha256"] == second["output_sha256"]  # the same output again
    recorded = json.loads((out / "run_report.json").read_text(encoding="utf-8"))["audit"]
    assert recorded["sha256"] == line_digest(log.read_bytes().splitlines()[1])
    text = log.read_text(encoding="utf-8")
    for value in ("Ana", "Ruiz", "5192837", "a.txt", str(out)):
        assert value not in text


def test_verify_a_run_folder_from_the_command_line(two_runs, capsys):
    out, _ = two_runs
    with pytest.raises(SystemExit) as done:
        main(["audit", "verify", str(out)])
    assert done.value.code == 0
    assert "2 lines, chain whole" in capsys.readouterr().out


def test_an_edited_last_line_shows_against_the_run_report(two_runs, capsys):
    out, _ = two_runs
    log = out / "audit_log.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"outcome":"ok"', b'"outcome":"OK"')
    rewrite(log, lines)
    with pytest.raises(SystemExit) as done:
        main(["audit", "verify", str(out)])
    assert done.value.code == 1
    err = capsys.readouterr().err
    assert "line 2: seq 2 differs from the line the run report records (edited)" in err


def test_a_removed_last_line_shows_against_the_run_report(two_runs):
    out, _ = two_runs
    log = out / "audit_log.jsonl"
    rewrite(log, log.read_bytes().splitlines(keepends=True)[:1])
    (problem,) = verify_target(out).problems
    assert "seq 2) is not in the log (removed)" in problem


def test_runs_share_a_log_the_user_sets(tmp_path, rule_nlp, monkeypatch):
    inp = tmp_path / "nota.txt"
    inp.write_text(NOTE, encoding="utf-8")
    shared = tmp_path / "logs" / "audit.jsonl"
    monkeypatch.setenv("MEDDOCAN_DEID_AUDIT_LOG", str(shared))
    run(rule_nlp, inp, tmp_path / "out1")
    run(rule_nlp, inp, tmp_path / "out2", audit_log=tmp_path / "own.jsonl")
    run(rule_nlp, inp, tmp_path / "out3")
    assert verify_target(shared).lines == 2 and verify_target(tmp_path / "own.jsonl").lines == 1
    assert not (tmp_path / "out1" / "audit_log.jsonl").exists()


def test_a_run_stopped_by_an_error_leaves_an_error_line(tmp_path, rule_nlp, monkeypatch):
    inp = tmp_path / "nota.txt"
    inp.write_text(NOTE, encoding="utf-8")

    def broken(self):
        raise RuntimeError("disk went away")

    monkeypatch.setattr(Run, "write_reports", broken)
    with pytest.raises(RuntimeError):
        run(rule_nlp, inp, tmp_path / "out")
    (line,) = (tmp_path / "out" / "audit_log.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["outcome"] == "error: RuntimeError"


def test_a_log_that_cannot_be_written_stops_the_run_before_it_writes(tmp_path, rule_nlp):
    inp = tmp_path / "nota.txt"
    inp.write_text(NOTE, encoding="utf-8")
    from meddocan_deid.engine import RunError

    with pytest.raises(RunError, match="the audit log is a folder"):
        run(rule_nlp, inp, tmp_path / "out", audit_log=tmp_path)
    assert not (tmp_path / "out").exists()
