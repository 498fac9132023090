"""POST /analyze as Presidio analyzer's REST API, on the rule-only pipeline through FastAPI's
TestClient: Presidio's request fields with Presidio's meaning, entity names of the mapping,
scores by source, the decision process, and an answer that presidio-anonymizer takes as it
is. Invented reports; the identifiers are made up (check letters computed)."""

import pytest
from fastapi.testclient import TestClient
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig, RecognizerResult

from meddocan_deid.presidio_entities import SOURCE_SCORES
from meddocan_deid.service import ServiceSettings, create_app
from meddocan_deid.service.engine import SHORT_CHARS

TOKEN = "prueba-token-presidio-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
REPORT = (
    "Datos del paciente.\nNombre: Casimira.\nApellidos: Lozoya Barrena.\nNHC: 4471902.\n"
    "DNI: 30541872B.\nEdad: 64 años Sexo: M.\n"
    "Informe clínico del paciente: mujer de 64 años con fiebre. Casimira refiere cefalea.\n"
)


@pytest.fixture(scope="module")
def client(rule_nlp, tmp_path_factory):
    tokens = tmp_path_factory.mktemp("presidio_rest") / "tokens.txt"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    with TestClient(create_app(ServiceSettings(token_file=tokens), nlp=rule_nlp)) as c:
        yield c


def analyze(client, **body):
    r = client.post("/analyze", json={"text": REPORT, "language": "es", **body}, headers=AUTH)
    assert r.status_code == 200, r.text
    return r.json()


def found(answer, text=REPORT):
    return sorted((p["entity_type"], text[p["start"] : p["end"]], p["score"]) for p in answer)


def test_presidio_names_and_scores_by_source(client):
    answer = found(analyze(client))
    for entity in [
        ("PERSON", "Casimira", 0.95),
        ("PERSON", "Casimira", 0.8),
        ("PERSON", "Lozoya Barrena", 0.95),
        ("ID", "4471902", 0.95),
        ("ES_NIF", "30541872B", 1.0),
        ("AGE", "64 años", 0.95),
        ("AGE", "64 años", 0.85),
    ]:
        assert entity in answer
    assert len({score for *_, score in answer}) >= 4
    assert all(score in SOURCE_SCORES.values() for *_, score in answer)


def test_entities_threshold_allow_list_as_presidio(client):
    persons = analyze(
        client, entities=["PERSON"], score_threshold=0.9, allow_list=["Lozoya Barrena"]
    )
    assert found(persons) == [("PERSON", "Casimira", 0.95)]
    mixed = analyze(
        client,
        entities=["PERSON", "ID_SUJETO_ASISTENCIA"],
        allow_list=["^casi"],
        allow_list_match="regex",
    )
    assert found(mixed) == [
        ("ES_NIF", "30541872B", 1.0),
        ("ID", "4471902", 0.95),
        ("PERSON", "Lozoya Barrena", 0.95),
    ]
    case_kept = analyze(
        client, entities=["PERSON"], allow_list=["^casi"], allow_list_match="regex", regex_flags=0
    )
    assert len(case_kept) == 3
    # MEDDOCAN labels only: MEDDOCAN labels back, unless asked otherwise
    assert {p["entity_type"] for p in analyze(client, entities=["NOMBRE_SUJETO_ASISTENCIA"])} == {
        "NOMBRE_SUJETO_ASISTENCIA"
    }
    assert {
        p["entity_type"]
        for p in analyze(client, entities=["NOMBRE_SUJETO_ASISTENCIA"], entity_names="presidio")
    } == {"PERSON"}
    # Presidio's other fields are accepted
    assert analyze(
        client, entities=["PERSON"], context=["paciente"], correlation_id="c-1"
    ) == analyze(client, entities=["PERSON"])


def test_the_native_answer_takes_the_same_filters(client):
    r = client.post(
        "/analyze",
        json={"text": REPORT, "entities": ["PERSON"], "allow_list": ["Casimira"]},
        headers=AUTH,
    )
    assert [(e["label"], REPORT[e["start"] : e["end"]]) for e in r.json()["entities"]] == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Lozoya Barrena")
    ]


def test_return_decision_process_explains_each_result(client):
    answer = analyze(client, entities=["ID", "ES_NIF"], return_decision_process=True)
    by_text = {REPORT[p["start"] : p["end"]]: p for p in answer}
    assert set(by_text) == {"4471902", "30541872B"}
    checked = by_text["30541872B"]["analysis_explanation"]
    assert (
        checked["recognizer"] == "MeddocanRecognizer"
        and checked["pattern_name"] == "checked_identifier"
    )
    assert (
        checked["original_score"] == checked["score"] == 1.0
        and checked["validation_result"] is True
    )
    keyed = by_text["4471902"]["analysis_explanation"]
    assert keyed["pattern_name"] == "field" and keyed["validation_result"] is None
    assert "ID_SUJETO_ASISTENCIA" in keyed["textual_explanation"]
    assert set(keyed) >= {
        "pattern",
        "score_context_improvement",
        "supportive_context_word",
        "regex_flags",
    }
    assert all("analysis_explanation" not in p for p in analyze(client, entities=["ID"]))


def test_known_identifiers_score_as_known(client):
    answer = analyze(
        client,
        entities=["PERSON"],
        known_phi={"NOMBRE_SUJETO_ASISTENCIA": ["Barrena"]},
        return_decision_process=True,
    )
    # a known value inside a detected name of its label is already covered
    assert ("PERSON", "Lozoya Barrena", 0.95) in found(answer)
    other = "Informe clínico del paciente: la señora Barrena refiere cefalea.\n"
    r = client.post(
        "/analyze",
        json={
            "text": other,
            "language": "es",
            "known_phi": {"NOMBRE_SUJETO_ASISTENCIA": ["Barrena"]},
        },
        headers=AUTH,
    ).json()
    assert found(r, other) == [("PERSON", "Barrena", 1.0)]


def test_a_long_request_keeps_the_sources(client):
    text = REPORT * (SHORT_CHARS // len(REPORT) + 2)
    r = client.post(
        "/analyze", json={"text": text, "language": "es", "entities": ["ES_NIF"]}, headers=AUTH
    )
    assert r.status_code == 200
    answer = r.json()
    assert len(answer) == text.count("30541872B") and {p["score"] for p in answer} == {1.0}


@pytest.mark.parametrize(
    "body,loc",
    [
        ({"entities": ["CREDIT_CARD"]}, ["body", "entities"]),
        ({"allow_list": ["(Casimira"], "allow_list_match": "regex"}, ["body", "allow_list"]),
        ({"allow_list": ["x"], "allow_list_match": "fuzzy"}, ["body", "allow_list_match"]),
        ({"regex_flags": 4096}, ["body", "regex_flags"]),
        ({"ad_hoc_recognizers": []}, ["body", "ad_hoc_recognizers"]),
    ],
)
def test_bad_presidio_fields_are_refused_without_echo(client, body, loc):
    r = client.post("/analyze", json={"text": REPORT, "language": "es", **body}, headers=AUTH)
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == loc
    assert "Casimira" not in r.text
    if "entities" in body:  # a Presidio name the mapping lacks is no PHI: the error names it
        assert "entities[0]: 'CREDIT_CARD' is neither" in r.text


def test_presidio_anonymizer_takes_the_answer_as_it_is(client):
    answer = analyze(
        client, entities=["PERSON", "ES_NIF"], allow_list=["Lozoya Barrena"], score_threshold=0.5
    )
    out = AnonymizerEngine().anonymize(
        text=REPORT,
        analyzer_results=[RecognizerResult.from_json(p) for p in answer],
        operators={
            "PERSON": OperatorConfig("replace", {"new_value": "<PERSONA>"}),
            "ES_NIF": OperatorConfig(
                "mask", {"masking_char": "*", "chars_to_mask": 9, "from_end": False}
            ),
        },
    )
    assert "Casimira" not in out.text and out.text.count("<PERSONA>") == 2
    assert "DNI: *********." in out.text
    assert "Apellidos: Lozoya Barrena." in out.text and "NHC: 4471902." in out.text
