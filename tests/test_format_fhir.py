"""FHIR R4 round trip: structured PHI replaced by rule, dates shifted by the patient's offset,
references kept consistent, free text de-identified with the structured values as known PHI,
and the output still valid FHIR R4. All values are invented."""

import base64
import datetime as dt
import json

import pytest

from meddocan_deid import Deidentifier
from meddocan_deid.formats import fhir

KEY = b"k" * 32

PATIENT = {
    "resourceType": "Patient",
    "id": "pac1",
    "identifier": [{"system": "urn:nhc", "value": "NHC-778812"}],
    "name": [{"family": "Zubiarrain", "given": ["Eladia"]}],
    "telecom": [{"system": "phone", "value": "612 334 908"}],
    "address": [{"line": ["Calle Olmo Rojo 14"], "city": "Villaverde", "postalCode": "28021"}],
    "birthDate": "1961-03-14",
    "text": {
        "status": "generated",
        "div": '<div xmlns="http://www.w3.org/1999/xhtml"><p>Eladia Zubiarrain</p></div>',
    },
}
ENCOUNTER = {
    "resourceType": "Encounter",
    "id": "enc1",
    "status": "finished",
    "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
    "subject": {"reference": "Patient/pac1"},
    "period": {"start": "2024-02-01T10:00:00+01:00", "end": "2024-02-09T12:00:00+01:00"},
}
NOTE = "Acude la paciente Zubiarrain, teléfono 612 334 908, acompañada de su hija."
REPORT = {
    "resourceType": "DocumentReference",
    "id": "doc1",
    "status": "current",
    "subject": {"reference": "Patient/pac1"},
    "date": "2024-02-09T12:00:00+01:00",
    "content": [
        {
            "attachment": {
                "contentType": "text/plain",
                "data": base64.b64encode(NOTE.encode()).decode(),
            }
        }
    ],
}


def bundle():
    return {
        "resourceType": "Bundle",
        "type": "collection",
        "entry": [
            {"fullUrl": f"urn:uuid:{i}1111111-2222-3333-4444-555555555555", "resource": r}
            for i, r in enumerate((PATIENT, ENCOUNTER, REPORT))
        ],
    }


@pytest.fixture(scope="module")
def fhir_deid(rule_nlp):
    return fhir.FhirDeidentifier(Deidentifier(rule_nlp, "surrogate", key=KEY))


def test_bundle_round_trip(fhir_deid, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "b.json").write_text(json.dumps(bundle()), "utf-8")
    (src / "notes.txt").write_text("not FHIR", "utf-8")
    out = tmp_path / "out"
    written = fhir.deidentify_paths([src], out, fhir_deid)
    assert [d.name for _s, d in written] == ["b.json"]  # the text file is not FHIR
    text = (out / "b.json").read_text("utf-8")
    result = json.loads(text)
    for value in ("Zubiarrain", "Eladia", "NHC-778812", "612 334 908", "Olmo Rojo", "1961-03-14"):
        assert value not in text
    pat, enc, doc = (e["resource"] for e in result["entry"])
    assert enc["subject"]["reference"] == f"Patient/{pat['id']}" != "Patient/pac1"
    assert doc["subject"]["reference"] == enc["subject"]["reference"]
    start = dt.datetime.fromisoformat(enc["period"]["start"])
    end = dt.datetime.fromisoformat(enc["period"]["end"])
    assert end - start == dt.timedelta(days=8, hours=2)
    assert enc["period"]["start"] != ENCOUNTER["period"]["start"]
    note = base64.b64decode(doc["content"][0]["attachment"]["data"]).decode()
    assert "Zubiarrain" not in note and "acompañada" in note
    assert "Zubiarrain" not in pat["text"]["div"] and pat["text"]["div"].startswith("<div")
    fhir.validate(result)


def test_same_id_same_new_id_across_files(fhir_deid):
    a = fhir_deid.resource(ENCOUNTER)
    b = fhir_deid.resource(REPORT)
    assert a["subject"] == b["subject"]
    assert fhir_deid.resource(PATIENT)["id"] == a["subject"]["reference"].split("/")[1]


def test_bad_rules_name_the_file(tmp_path):
    bad = tmp_path / "rules.json"
    bad.write_text(json.dumps([{"path": "Patient.name", "action": "scramble"}]), "utf-8")
    with pytest.raises(fhir.FhirError, match="rules.json: rule 1: unknown action"):
        fhir.load_rules(bad)


def test_not_fhir_json_names_the_file(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a": 1}', "utf-8")
    with pytest.raises(fhir.FhirError, match="x.json: resource 1 has no 'resourceType'"):
        fhir.read_resources(path)


def cli(monkeypatch, nlp, *args, key=None):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: nlp)
    return CliRunner().invoke(
        app, ["deidentify", *[str(a) for a in args]], env={"MEDDOCAN_DEID_KEY": key}
    )


def test_cli_ndjson_by_content(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "export.ndjson"
    src.write_text("".join(json.dumps(r) + "\n" for r in (PATIENT, ENCOUNTER)), "utf-8")
    out = tmp_path / "out"
    result = cli(monkeypatch, rule_nlp, src, out, "--mode", "surrogate", key="k" * 32)
    assert result.exit_code == 0, result.output
    lines = (out / "export.ndjson").read_text("utf-8").splitlines()
    pat, enc = (json.loads(line) for line in lines)
    assert "Zubiarrain" not in lines[0]
    assert enc["subject"]["reference"] == f"Patient/{pat['id']}"


def test_cli_folder_needs_a_key(monkeypatch, rule_nlp, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "p.json").write_text(json.dumps(PATIENT), "utf-8")
    result = cli(
        monkeypatch, rule_nlp, src, tmp_path / "out", "--input-format", "fhir", "--mode", "tag"
    )
    assert result.exit_code == 2
    assert "needs a key" in result.output
