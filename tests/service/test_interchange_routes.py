"""POST /deidentify/fhir and /deidentify/hl7v2: a FHIR resource and HL7 v2 messages
de-identified by the rewriters the CLI's run uses (rule-only pipeline, in-process client;
nothing listens on a port). All values are invented."""

import json

import pytest
from fastapi.testclient import TestClient

from meddocan_deid import Deidentifier
from meddocan_deid.formats import fhir, hl7v2
from meddocan_deid.service.app import create_app
from meddocan_deid.service.settings import ServiceSettings

TOKEN = "token-de-prueba-para-intercambio-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
KEY = "clave de prueba inventada para intercambio, 32+"
BUNDLE = {
    "resourceType": "Bundle",
    "type": "collection",
    "entry": [
        {
            "resource": {
                "resourceType": "Patient",
                "id": "p9",
                "name": [{"family": "Echeverría", "given": ["Pancracia"]}],
                "birthDate": "1970-01-20",
            }
        },
        {
            "resource": {
                "resourceType": "Observation",
                "id": "o9",
                "status": "final",
                "code": {"text": "nota"},
                "subject": {"reference": "Patient/p9"},
                "valueString": "Pancracia Echeverría sin dolor.",
            }
        },
    ],
}
MESSAGE = "\r".join(
    (
        "MSH|^~\\&|HIS|HOSP|LAB|HOSP|20240105101500||ORU^R01|M9|P|2.5",
        "PID|1||NHC551903^^^HOSP^MR||Echeverría^Pancracia",
        "OBX|1|TX|INF^Informe||Pancracia Echeverría estable.||||||F",
    )
)


def make_client(folder, rule_nlp, key=True):
    (folder / "tokens.txt").write_text(TOKEN + "\n", encoding="utf-8")
    extra = {}
    if key:
        (folder / "deid.key").write_text(KEY + "\n", encoding="utf-8")
        extra["key_file"] = folder / "deid.key"
    settings = ServiceSettings(token_file=folder / "tokens.txt", **extra)
    return TestClient(create_app(settings, nlp=rule_nlp))


@pytest.fixture(scope="module")
def client(tmp_path_factory, rule_nlp):
    with make_client(tmp_path_factory.mktemp("interchange"), rule_nlp) as c:
        yield c


def test_fhir_bundle_as_the_run_writes_it(client, rule_nlp):
    r = client.post(
        "/deidentify/fhir", json={"resource": BUNDLE, "mode": "surrogate"}, headers=AUTH
    )
    assert r.status_code == 200, r.text
    body = r.json()
    text = json.dumps(body["resource"], ensure_ascii=False)
    assert "Echeverría" not in text and "Pancracia" not in text and "1970-01-20" not in text
    assert body["phi_per_label"]["NOMBRE_SUJETO_ASISTENCIA"] >= 2
    # the same rewriter as a file of the CLI's run: the same output for the same key
    rewriter = fhir.rewriter(Deidentifier(rule_nlp, "surrogate", key=KEY.encode()))
    source = json.dumps(BUNDLE, ensure_ascii=False)
    rewriter.collect_text(source, "b.json")
    assert body["resource"] == json.loads(rewriter.rewrite(source, "b.json")[0])


def test_hl7_message(client):
    r = client.post(
        "/deidentify/hl7v2", json={"message": MESSAGE, "mode": "surrogate"}, headers=AUTH
    )
    assert r.status_code == 200, r.text
    out = r.json()["message"]
    assert [s.split("|")[0] for s in out.strip("\r").split("\r")] == ["MSH", "PID", "OBX"]
    assert "Echeverría" not in out and "NHC551903" not in out
    hl7v2.parse(out)


def test_broken_inputs_are_named(client):
    r = client.post("/deidentify/fhir", json={"resource": {"id": "x"}}, headers=AUTH)
    assert r.status_code == 422
    assert "resource 1 has no 'resourceType'" in r.text and r.json()["detail"][0]["loc"] == [
        "body",
        "resource",
    ]
    r = client.post("/deidentify/hl7v2", json={"message": "PID|1||X\rMSH|^~\\&|A"}, headers=AUTH)
    assert r.status_code == 422 and "a segment comes before the first MSH" in r.text


def test_inline_policy_rules_and_no_server_paths(client):
    policy = {"fhir_rules": [{"path": "Patient.name", "action": "redact"}]}
    r = client.post(
        "/deidentify/fhir",
        json={"resource": BUNDLE["entry"][0]["resource"], "policy": policy, "mode": "tag"},
        headers=AUTH,
    )
    assert r.status_code == 200, r.text
    assert "name" not in r.json()["resource"]
    r = client.post(
        "/deidentify/hl7v2",
        json={"message": MESSAGE, "policy": {"hl7_rules": "/etc/rules.json"}},
        headers=AUTH,
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "policy", "hl7_rules"]


def test_token_and_key_needed(tmp_path, rule_nlp, client):
    assert client.post("/deidentify/fhir", json={"resource": BUNDLE}).status_code == 401
    with make_client(tmp_path, rule_nlp, key=False) as keyless:
        r = keyless.post(
            "/deidentify/hl7v2", json={"message": MESSAGE, "mode": "tag"}, headers=AUTH
        )
    assert r.status_code == 422 and "needs the server's key" in r.text
