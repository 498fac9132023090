"""The Presidio recognizer and the REST /analyze score an entity of the NER by its calibrated
confidence (the pipeline's `ent_confidence`), the others by their source; a "ner" score given to
the recognizer wins."""

import spacy
from fastapi.testclient import TestClient
from spacy.language import Language
from spacy.tokens import Span, SpanGroup

from meddocan_deid.presidio import SOURCE_KEY, MeddocanRecognizer
from meddocan_deid.presidio_entities import SOURCE_SCORES
from meddocan_deid.service import ServiceSettings, create_app

TEXT = "Ingresa Ana Ruiz en Toledo."


@Language.component("invented_ner_with_probabilities")
def invented_ner(doc):
    """Stands in for the NER: two entities with their probabilities."""
    spans = [
        Span(doc, 1, 3, label="NOMBRE_SUJETO_ASISTENCIA"),
        Span(doc, 4, 5, label="TERRITORIO"),
    ]
    doc.ents = spans
    doc.spans["ner_confidence"] = SpanGroup(doc, spans=spans, attrs={"probs": [0.97, 0.3]})
    return doc


def pipeline():
    nlp = spacy.blank("es")
    nlp.add_pipe("invented_ner_with_probabilities")
    nlp.add_pipe("meddocan_ent_confidence", name="ent_confidence").set_state(
        {"calibration": [{"x": 0.2, "y": 0.1}, {"x": 0.5, "y": 0.6}, {"x": 0.99, "y": 0.99}]}
    )
    return nlp


def test_ner_entities_score_their_calibrated_confidence():
    results = MeddocanRecognizer(nlp=pipeline()).analyze(TEXT, ["PERSON", "LOCATION"])
    scores = {TEXT[r.start : r.end]: r.score for r in results}
    assert all(r.recognition_metadata[SOURCE_KEY] == "ner" for r in results)
    # 0.97 -> 0.6 + 0.39 * 0.47 / 0.49; 0.3 -> 0.1 + 0.5 / 3
    assert scores == {
        "Ana Ruiz": round(0.6 + 0.39 * 0.47 / 0.49, 4),
        "Toledo": round(0.1 + 0.5 / 3, 4),
    }
    assert scores["Ana Ruiz"] != SOURCE_SCORES["ner"]


def test_a_given_ner_score_wins():
    rec = MeddocanRecognizer(nlp=pipeline(), scores={"ner": 0.7})
    assert {r.score for r in rec.analyze(TEXT, ["PERSON", "LOCATION"])} == {0.7}


def test_rest_analyze_scores_ner_entities_by_confidence(tmp_path):
    token = "prueba-token-confianza-0123456789"
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(token + "\n", encoding="utf-8")
    with TestClient(create_app(ServiceSettings(token_file=tokens), nlp=pipeline())) as client:
        r = client.post(
            "/analyze",
            json={"text": TEXT, "language": "es", "score_threshold": 0.5},
            headers={"Authorization": f"Bearer {token}"},
        )
    assert r.status_code == 200, r.text
    # the town's confidence (0.2667) is under the threshold: only the name is left
    assert [(TEXT[p["start"] : p["end"]], p["score"]) for p in r.json()] == [
        ("Ana Ruiz", round(0.6 + 0.39 * 0.47 / 0.49, 4))
    ]
