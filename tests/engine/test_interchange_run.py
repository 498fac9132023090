"""FHIR and HL7 v2 files in the one run (the CLI's `deidentify`, the engine's `Run`): a folder
of mixed files in one run, the run report, resume, failures by name and the exit code, and the
known PHI, references and date offsets that agree across the files of a run. All values are
invented."""

import json

import pytest
from typer.testing import CliRunner

from meddocan_deid.cli.app import app
from meddocan_deid.engine import Run, RunConfig

KEY = "clave inventada para los ficheros de intercambio"
PATIENT = {
    "resourceType": "Patient",
    "id": "pac7",
    "name": [{"family": "Arrizabalaga", "given": ["Leocadia"]}],
    "birthDate": "1958-06-02",
}
ENCOUNTER = {
    "resourceType": "Encounter",
    "id": "enc7",
    "status": "finished",
    "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
    "subject": {"reference": "Patient/pac7"},
    "period": {"start": "2023-11-03", "end": "2023-11-10"},
}
# the surname alone: found in this file's text only as a value of the patient of another file
NOTE = {
    "resourceType": "Observation",
    "id": "obs7",
    "status": "final",
    "code": {"text": "nota"},
    "subject": {"reference": "Patient/pac7"},
    "effectiveDateTime": "2023-11-03",
    "valueString": "Arrizabalaga refiere mejoría.",
}
ADT = "\r".join(
    (
        "MSH|^~\\&|HIS|HOSP|LAB|HOSP|20231103101500||ADT^A01|MSG001|P|2.5",
        "PID|1||NHC990017^^^HOSP^MR||Arrizabalaga^Leocadia||19580602|F",
    )
)


def invoke(monkeypatch, nlp, *args):
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: nlp)
    return CliRunner().invoke(
        app, ["deidentify", *[str(a) for a in args]], env={"MEDDOCAN_DEID_KEY": KEY}
    )


@pytest.fixture
def mixed(tmp_path):
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "informe.txt").write_text("Paciente sin incidencias.", "utf-8")
    (src / "paciente.json").write_text(json.dumps(PATIENT), "utf-8")
    (src / "sub" / "ingreso.ndjson").write_text(
        json.dumps(ENCOUNTER) + "\n" + json.dumps(NOTE) + "\n", "utf-8"
    )
    (src / "adt.hl7").write_bytes((ADT + "\r").encode())
    (src / "roto.json").write_text('{"resourceType": "Patient", "name": [', "utf-8")
    (src / "roto.hl7").write_bytes(b"PID|1||X\rMSH|^~\\&|A|B\r")
    return src


def test_mixed_folder_in_one_run(monkeypatch, rule_nlp, mixed, tmp_path):
    out = tmp_path / "out"
    result = invoke(monkeypatch, rule_nlp, mixed, out, "--mode", "surrogate")
    assert result.exit_code == 1, result.output  # two broken files, the others written
    assert "failed: roto.json: not valid JSON" in result.output
    report = json.loads((out / "run_report.json").read_text("utf-8"))
    assert report["reports"]["read"] == 6
    assert report["reports"]["written"] == 4 and report["reports"]["failed"] == 2
    failed = {f["file"]: f["reason"] for f in report["failed"]}
    assert set(failed) == {"roto.json", "roto.hl7"}
    assert failed["roto.hl7"] == "roto.hl7: a segment comes before the first MSH"
    assert (out / "informe.txt").exists() and (out / "informe.ann").exists()
    patient = json.loads((out / "paciente.json").read_text("utf-8"))
    encounter, note = [
        json.loads(line)
        for line in (out / "sub" / "ingreso.ndjson").read_text("utf-8").splitlines()
    ]
    # references and known PHI agree across files: the patient of one file, named in another
    assert encounter["subject"]["reference"] == f"Patient/{patient['id']}"
    assert "Arrizabalaga" not in note["valueString"] and "mejoría" in note["valueString"]
    assert "Arrizabalaga" not in (out / "adt.hl7").read_text("utf-8")
    assert report["phi_per_label"].get("NOMBRE_SUJETO_ASISTENCIA", 0) >= 3
    assert not (out / "roto.json").exists()


def test_date_offset_of_a_patient_across_files(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text(json.dumps(ENCOUNTER), "utf-8")
    (src / "b.json").write_text(json.dumps(NOTE), "utf-8")
    out = tmp_path / "out"
    assert invoke(monkeypatch, rule_nlp, src, out, "--mode", "surrogate").exit_code == 0
    a = json.loads((out / "a.json").read_text("utf-8"))
    b = json.loads((out / "b.json").read_text("utf-8"))
    # the same day of one patient in two files: the same shifted day
    assert a["period"]["start"] == b["effectiveDateTime"] != ENCOUNTER["period"]["start"]


def test_resume_skips_written_files_and_redoes_changed_ones(monkeypatch, rule_nlp, mixed, tmp_path):
    out = tmp_path / "out"
    invoke(monkeypatch, rule_nlp, mixed, out, "--mode", "surrogate")
    first = (out / "paciente.json").read_text("utf-8")
    (mixed / "roto.json").write_text(json.dumps(NOTE), "utf-8")  # mended
    result = invoke(monkeypatch, rule_nlp, mixed, out, "--mode", "surrogate")
    assert result.exit_code == 1, result.output  # roto.hl7 is still broken
    report = json.loads((out / "run_report.json").read_text("utf-8"))
    assert report["reports"]["skipped"] == 4
    assert report["reports"]["written"] == 1 and report["reports"]["failed"] == 1
    assert json.loads((out / "roto.json").read_text("utf-8"))["resourceType"] == "Observation"
    assert (out / "paciente.json").read_text("utf-8") == first


def test_messages_in_txt_files_with_input_format(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "mensaje.txt").write_bytes((ADT + "\r").encode())
    (src / "nota.txt").write_text("Sin cambios.", "utf-8")
    out = tmp_path / "out"
    result = invoke(
        monkeypatch, rule_nlp, src, out, "--mode", "surrogate", "--input-format", "hl7v2"
    )
    assert result.exit_code == 0, result.output
    message = (out / "mensaje.txt").read_bytes().decode("utf-8")
    assert message.startswith("MSH|") and "Arrizabalaga" not in message
    assert not (out / "mensaje.ann").exists() and (out / "nota.ann").exists()


def test_rules_file_changes_the_fingerprint(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "paciente.json"
    src.write_text(json.dumps(PATIENT), "utf-8")
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"path": "Patient.name", "action": "redact"}]), "utf-8")
    out = tmp_path / "out"
    assert invoke(monkeypatch, rule_nlp, src, out, "--mode", "surrogate").exit_code == 0
    again = invoke(monkeypatch, rule_nlp, src, out, "--mode", "surrogate", "--fhir-rules", rules)
    assert again.exit_code == 2 and "--overwrite" in again.output
    replaced = invoke(
        monkeypatch,
        rule_nlp,
        src,
        out,
        "--mode",
        "surrogate",
        "--fhir-rules",
        rules,
        "--overwrite",
    )
    assert replaced.exit_code == 0, replaced.output
    assert "name" not in json.loads((out / "paciente.json").read_text("utf-8"))


def test_bad_rules_file_stops_the_run_before_writing(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "adt.hl7"
    src.write_bytes((ADT + "\r").encode())
    rules = tmp_path / "r.json"
    rules.write_text('[{"field": "PID5", "action": "redact"}]', "utf-8")
    out = tmp_path / "out"
    result = invoke(monkeypatch, rule_nlp, src, out, "--mode", "surrogate", "--hl7-rules", rules)
    assert result.exit_code == 2
    assert "r.json: rule 1: 'field' is not like 'PID-5'" in result.output
    assert not out.exists()


def test_run_api_with_a_bundle(rule_nlp, tmp_path):
    src = tmp_path / "p.json"
    src.write_text(json.dumps(PATIENT), "utf-8")
    config = RunConfig(src, tmp_path / "out", "surrogate", key=KEY.encode())
    report = Run(config, nlp=rule_nlp).execute_report()
    assert report.exit_code == 0 and report.counts["written"] == 1
    assert "Leocadia" not in (tmp_path / "out" / "p.json").read_text("utf-8")


def test_tag_mode_reads_the_key_for_interchange_files(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "paciente.json").write_text(json.dumps(PATIENT), "utf-8")
    (src / "nota.txt").write_text("Sin cambios.", "utf-8")
    out = tmp_path / "out"
    result = invoke(monkeypatch, rule_nlp, src, out, "--mode", "tag")
    assert result.exit_code == 0, result.output
    written = (out / "paciente.json").read_text("utf-8")
    assert "Arrizabalaga" not in written and "pac7" not in written
    fingerprint = json.loads((out / "run_fingerprint.json").read_text("utf-8"))
    assert fingerprint["key_fingerprint"] != "none"


def test_broken_ndjson_line_is_named(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "export.ndjson").write_text(json.dumps(PATIENT) + "\n\n{roto\n", "utf-8")
    (src / "bien.ndjson").write_text(json.dumps(PATIENT) + "\n", "utf-8")
    out = tmp_path / "out"
    result = invoke(monkeypatch, rule_nlp, src, out, "--mode", "surrogate")
    assert result.exit_code == 1
    report = json.loads((out / "run_report.json").read_text("utf-8"))
    assert report["failed"] == [
        {"id": "export", "file": "export.ndjson", "reason": "export.ndjson: line 3: not valid JSON"}
    ]
    assert (out / "bien.ndjson").exists() and not (out / "export.ndjson").exists()
