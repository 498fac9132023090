"""The FHIR and HL7 v2 rule sets in a policy file (`fhir_rules`, `hl7_rules`: a JSON file
relative to the policy, or inline): read and checked with the policy, covered by its digest,
and used by a run. All values are invented."""

import json

import pytest

from meddocan_deid.deid.policy import load_policy
from meddocan_deid.errors import PolicyError

REDACT_NAMES = [{"path": "Patient.name", "action": "redact"}]


def write_policy(folder, text):
    path = folder / "policy.toml"
    path.write_text(text, "utf-8")
    return path


def test_rule_file_relative_to_the_policy_and_inline_rules(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "fhir.json").write_text(json.dumps(REDACT_NAMES), "utf-8")
    policy = load_policy(
        write_policy(
            tmp_path,
            'fhir_rules = "rules/fhir.json"\n'
            'hl7_rules = [{field = "PID-5", action = "surrogate", '
            'components = {"1" = "NOMBRE_SUJETO_ASISTENCIA"}}]\n',
        )
    )
    assert policy.fhir_rules is not None and policy.hl7_rules is not None
    assert [(r.resource, r.element, r.action) for r in policy.fhir_rules] == [
        ("Patient", "name", "redact")
    ]
    assert policy.hl7_rules[0].segment == "PID" and policy.hl7_rules[0].components == {
        1: "NOMBRE_SUJETO_ASISTENCIA"
    }


def test_digest_covers_the_rules(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(REDACT_NAMES), "utf-8")
    (tmp_path / "b.json").write_text(
        json.dumps([{"path": "Patient.name", "action": "hash", "labels": {"family": "X"}}]),
        "utf-8",
    )
    plain = load_policy(write_policy(tmp_path, "age_threshold = 90\n")).digest()
    with_a = load_policy(write_policy(tmp_path, 'age_threshold = 90\nfhir_rules = "a.json"\n'))
    with_b = load_policy(write_policy(tmp_path, 'age_threshold = 90\nfhir_rules = "b.json"\n'))
    assert len({plain, with_a.digest(), with_b.digest()}) == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'hl7_rules = [{field = "PID5", action = "redact"}]\n',
            "policy.toml: hl7_rules: rule 1: 'field' is not like 'PID-5'",
        ),
        (
            'fhir_rules = [{path = "Patient.name", action = "scramble"}]\n',
            "policy.toml: fhir_rules: rule 1: unknown action",
        ),
        ('fhir_rules = "missing.json"\n', "policy.toml: fhir_rules: "),
        ("fhir_rules = 3\n", "fhir_rules: expected the path of a JSON rule file"),
    ],
)
def test_bad_rules_name_the_policy_key_and_rule(tmp_path, text, message):
    with pytest.raises(PolicyError, match=message.replace("(", r"\(")) as err:
        load_policy(write_policy(tmp_path, text))
    assert str(tmp_path / "policy.toml") in str(err.value)


def test_a_run_uses_the_policy_rules(monkeypatch, rule_nlp, tmp_path):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    (tmp_path / "fhir.json").write_text(json.dumps(REDACT_NAMES), "utf-8")
    policy = write_policy(tmp_path, 'fhir_rules = "fhir.json"\n')
    src = tmp_path / "p.json"
    patient = {"resourceType": "Patient", "id": "p1", "name": [{"family": "Olabarrieta"}]}
    src.write_text(json.dumps(patient), "utf-8")
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: rule_nlp)
    result = CliRunner().invoke(
        app,
        ["deidentify", str(src), str(tmp_path / "out"), "--mode", "surrogate"]
        + ["--policy", str(policy)],
        env={"MEDDOCAN_DEID_KEY": "clave inventada de la política de prueba"},
    )
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "out" / "p.json").read_text("utf-8"))
    assert "name" not in written and written["resourceType"] == "Patient"
