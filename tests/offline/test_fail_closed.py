"""Fail-closed: a component that raises fails its report by name (the component's name, the
exception's class, never the text), and nothing of that report is written: not by the
command line (no .txt, .ann, private copy or review page with its text), not by the service
(a 500 naming the component; in a table, the row's cells empty), not by Spark in local mode
(the row's status names the component, its text is null). The other reports go on.
Invented reports."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import raising_component  # noqa: F401  (registers the component)
from fastapi.testclient import TestClient
from raising_component import MARKER

from meddocan_deid.cli.app import main
from meddocan_deid.deid import Record
from meddocan_deid.deid.deidentifier import Deidentifier
from meddocan_deid.service import ServiceSettings, create_app

NAME, NHC = "Leocadia", "8812034"
BROKEN = f"Nombre: {NAME}.\nNHC: {NHC}.\nInforme {MARKER}.\n"
GOOD = "Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n"
REASON = "error in the pipeline component 'raises_on_marker' (RuntimeError)"
TOKEN = "token-fallo-cerrado-0123456789"


@pytest.fixture(scope="module")
def breaking_nlp(rule_nlp):
    """The rule pipeline with the raising component last (removed after the module)."""
    rule_nlp.add_pipe("raises_on_marker", last=True)
    try:
        yield rule_nlp
    finally:
        rule_nlp.remove_pipe("raises_on_marker")


@pytest.fixture(scope="module")
def model_dir(breaking_nlp, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "breaking"
    breaking_nlp.to_disk(path)
    return path


def test_the_library_fails_the_report_by_the_component_name(breaking_nlp):
    results = list(
        Deidentifier(breaking_nlp, "tag").deidentify_records(
            [Record("a", GOOD), Record("b", BROKEN), Record("c", GOOD)]
        )
    )
    assert [r.status for r in results] == ["ok", f"failed: {REASON}", "ok"]
    assert results[1].text is None and NAME not in repr(results)


def test_the_command_line_writes_nothing_of_the_failed_report(model_dir, tmp_path, capsys):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "bien.txt").write_text(GOOD, encoding="utf-8")
    (inp / "roto.txt").write_text(BROKEN, encoding="utf-8")
    out, private, review = tmp_path / "out", tmp_path / "private", tmp_path / "review"
    args = ["deidentify", str(inp), str(out), "--mode", "tag", "--model", str(model_dir)]
    with pytest.raises(SystemExit) as done:
        main([*args, "--private-dir", str(private), "--review", str(review)])
    assert done.value.code == 1
    assert f"roto.txt: {REASON}" in capsys.readouterr().err
    assert (out / "bien.txt").exists() and not (out / "roto.txt").exists()
    assert not (out / "roto.ann").exists() and not (private / "roto.txt").exists()
    for folder in (out, private, review):
        for path in folder.rglob("*"):
            if path.is_file():
                text = path.read_text(encoding="utf-8", errors="replace")
                assert NAME not in text and NHC not in text, path
    report = json.loads((out / "run_report.json").read_text(encoding="utf-8"))
    assert report["failed"] == [{"id": "roto", "file": "roto.txt", "reason": f"roto.txt: {REASON}"}]
    line = json.loads((out / "audit_log.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert line["outcome"] == "failed: 1 reports" and line["counts"]["failed"] == 1


def test_the_service_answers_an_error_naming_the_component(breaking_nlp, tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    log = tmp_path / "audit.jsonl"
    settings = ServiceSettings(token_file=tokens, audit_log=log)
    with TestClient(create_app(settings, nlp=breaking_nlp)) as client:
        broken = client.post("/deidentify", json={"texts": [GOOD, BROKEN]}, headers=auth)
        table = client.post(
            "/deidentify/table",
            json={
                "rows": [{"id": "r1", "nota": GOOD}, {"id": "r2", "nota": BROKEN}],
                "id_column": "id",
                "text_columns": ["nota"],
            },
            headers=auth,
        )
    assert broken.status_code == 500 and REASON in broken.text
    assert NAME not in broken.text and NHC not in broken.text
    assert table.status_code == 200, table.text
    rows = table.json()["rows"]
    assert rows[0]["deid_status"] == "ok" and rows[1]["deid_status"] == f"failed: nota: {REASON}"
    assert rows[1]["nota"] in (None, "") and NAME not in table.text and NHC not in table.text
    outcomes = [json.loads(x)["outcome"] for x in log.read_text(encoding="utf-8").splitlines()]
    assert outcomes == ["error: 500", "ok"]


def test_spark_marks_the_row_failed_by_name_and_writes_no_text(tmp_path):
    pytest.importorskip("pyspark")
    here = Path(__file__).parent
    root = here.parent.parent
    paths = [here / "spark_site", here, root / "components", os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in paths if p)}
    done = subprocess.run(
        [sys.executable, str(here / "spark_session.py"), str(root), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    assert rows == [
        {"id": "bien", "status": "ok", "text_is_null": False},
        {"id": "roto", "status": f"failed: {REASON}", "text_is_null": True},
    ]
