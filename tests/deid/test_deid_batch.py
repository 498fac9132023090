"""The batch core (`deid/batch.py`, reused by the Spark integration) and the logs."""

import logging

import pytest
from command_line import report_counts

from meddocan_deid.deid import DeidOptions, Record, RecordResult, deidentify, deidentify_records

KEY = b"batch-key-0123456789abcdef"
REPORT = (
    "Datos del paciente.\nNombre: {name}.\nApellidos: {surname}.\nNHC: {nhc}.\n"
    "Fecha de nacimiento: 20/05/1960.\n"
)


def report(name="Ana", surname="Ruiz Gil", nhc="5192837"):
    return REPORT.format(name=name, surname=surname, nhc=nhc)


class ExplodingNLP:
    """Wraps a pipeline and raises, quoting the text (as third-party code might), for texts
    that contain BOOM."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.max_length = nlp.max_length
        self.vocab = nlp.vocab

    def _check(self, text):
        if "BOOM" in text:
            raise RuntimeError(f"cannot process {text!r}")

    def pipe(self, texts):
        texts = list(texts)
        for t in texts:
            self._check(t)
        return self.nlp.pipe(texts)

    def __call__(self, text):
        self._check(text)
        return self.nlp(text)


def test_one_result_per_record_in_order(rule_nlp):
    records = [Record(f"r{i}", report(nhc=f"{1000000 + i}")) for i in range(7)]
    records.insert(2, Record("empty", "  \n"))
    records.insert(5, Record("long", "x" * (len(report()) + 100)))
    records.insert(6, Record("notstr", None))
    results = list(
        deidentify_records(
            rule_nlp,
            records,
            "surrogate",
            KEY,
            batch_size=3,
            options=DeidOptions(max_chars=40 + len(report())),
        )
    )
    assert [r.id for r in results] == [r.id for r in records]
    assert all(isinstance(r, RecordResult) for r in results)
    status = {r.id: r.status for r in results}
    assert status["empty"] == "failed: empty text"
    assert status["notstr"] == "failed: text is not a string"
    assert status["r0"] == "ok"
    ok = [r for r in results if r.status == "ok"]
    assert len(ok) == 7
    for r, rec in zip(ok, [x for x in records if x.id.startswith("r")]):
        assert r.text is not None and rec.text[r.phi[2][1] : r.phi[2][2]].isdigit()
        assert [p[0] for p in r.phi] == [
            "NOMBRE_SUJETO_ASISTENCIA",
            "NOMBRE_SUJETO_ASISTENCIA",
            "ID_SUJETO_ASISTENCIA",
            "FECHAS",
        ]
    failed = [r for r in results if r.status != "ok"]
    assert all(r.text is None and r.phi == [] for r in failed)


def test_too_long_fails(rule_nlp):
    (res,) = deidentify_records(
        rule_nlp, [Record("a", report())], "mask", None, options=DeidOptions(max_chars=10)
    )
    assert res.status.startswith("failed: text too long") and res.text is None


def test_pipeline_exception_is_isolated_and_never_quoted(rule_nlp):
    nlp = ExplodingNLP(rule_nlp)
    records = [Record("a", report()), Record("b", report("BOOM")), Record("c", report("Eva"))]
    results = list(deidentify_records(nlp, records, "tag", None, batch_size=8))
    assert [r.status for r in results] == [
        "ok",
        "failed: error in the pipeline (RuntimeError)",
        "ok",
    ]
    assert "BOOM" not in repr(results)


def test_same_output_whatever_the_batch_size_and_order(rule_nlp):
    records = [Record(f"r{i}", report(nhc=f"{2000000 + i}")) for i in range(6)]
    a = {
        r.id: r.text for r in deidentify_records(rule_nlp, records, "surrogate", KEY, batch_size=1)
    }
    b = {
        r.id: r.text
        for r in deidentify_records(rule_nlp, records[::-1], "surrogate", KEY, batch_size=4)
    }
    assert a == b


def test_patient_id_shares_surrogates_across_reports(rule_nlp):
    text1 = report()
    text2 = "Datos del paciente.\nNombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5555555.\n"
    recs = [
        Record("a", text1, "P1"),
        Record("b", text2, "P1"),
        Record("c", text2, "P2"),
        Record("d", text2),
    ]
    out = {r.id: r for r in deidentify_records(rule_nlp, recs, "surrogate", KEY)}

    def names(r):
        return [
            r.text[x.new_start : x.new_end]
            for x in r.replacements
            if x.label == "NOMBRE_SUJETO_ASISTENCIA"
        ]

    assert names(out["a"]) == names(out["b"])
    assert names(out["b"]) != names(out["c"]) and names(out["b"]) != names(out["d"])


def test_bad_mode_or_missing_key_raise_at_once(rule_nlp):
    with pytest.raises(ValueError, match="unknown mode"):
        deidentify_records(rule_nlp, [], "scramble", None)
    with pytest.raises(ValueError, match="needs a key"):
        deidentify_records(rule_nlp, [], "surrogate", None)


CANARY_NAME, CANARY_SURNAME, CANARY_ID = "Zebulonia", "Canarinez Pajarez", "9182736"


def test_canary_never_logged(rule_nlp, caplog, capsys, tmp_path):
    """With DEBUG logging everywhere, neither the API, the batch core nor the CLI run
    put PHI of the reports in logs or on the console."""
    from meddocan_deid.engine import run

    text = report(CANARY_NAME, CANARY_SURNAME, CANARY_ID)
    caplog.set_level(logging.DEBUG)
    res = deidentify(text, mode="surrogate", key=KEY, nlp=rule_nlp, scope="canary")
    assert CANARY_NAME not in res.text and CANARY_ID not in res.text
    nlp = ExplodingNLP(rule_nlp)
    results = list(
        deidentify_records(nlp, [Record("c1", text), Record("c2", text + "BOOM")], "surrogate", KEY)
    )
    assert results[1].status.startswith("failed")
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "c1.txt").write_text(text, encoding="utf-8")
    (inp / "c2.txt").write_bytes(text.encode("utf-8") + b"\xff")
    (inp / "c3.txt").write_text(text + "BOOM", encoding="utf-8")
    rep = run(inp, tmp_path / "out", "surrogate", KEY, nlp=nlp, progress=False)
    assert rep["reports"] == report_counts(3, 1, failed=2)
    captured = capsys.readouterr()
    everything = (
        caplog.text
        + captured.out
        + captured.err
        + (tmp_path / "out" / "run_report.json").read_text()
    )
    everything += (tmp_path / "out" / "c1.ann").read_text()
    assert any(r.levelno == logging.DEBUG for r in caplog.records)  # debug logging did happen
    for canary in (CANARY_NAME, CANARY_SURNAME, CANARY_ID, "Canarinez"):
        assert canary not in everything
