"""meddocan_ent_confidence: the NER's probability of each entity of doc.ents (same span, else
the one it overlaps most), through the calibration saved with the pipeline; the near misses no
entity covers; a bad calibration refused by point."""

import pytest
import spacy
from spacy.tokens import Doc, Span, SpanGroup

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid.pipeline.ent_confidence import (
    CONFIDENCE_KEY,
    NEAR_MISSES_KEY,
    check_calibration,
    entity_confidence,
    interpolate,
)

WORDS = "Ingresa Ana Ruiz Gil en Toledo el 3 de marzo con su hija Eva".split()
POINTS = [{"x": 0.2, "y": 0.1}, {"x": 0.6, "y": 0.5}, {"x": 0.9, "y": 0.95}]


def annotated(nlp) -> Doc:
    doc = Doc(nlp.vocab, words=WORDS)
    ner = [
        Span(doc, 1, 4, label="NOMBRE_SUJETO_ASISTENCIA"),
        Span(doc, 5, 6, label="TERRITORIO"),
        Span(doc, 7, 10, label="FECHAS"),
    ]
    doc.spans["ner_confidence"] = SpanGroup(doc, spans=ner, attrs={"probs": [0.9, 0.6, 0.4]})
    near = [
        Span(doc, 5, 6, label="TERRITORIO"),
        Span(doc, 13, 14, label="FAMILIARES_SUJETO_ASISTENCIA"),
    ]
    doc.spans["ner_near_misses"] = SpanGroup(doc, spans=near, attrs={"probs": [0.3, 0.45]})
    # after the NER: the name kept, the date cut to "3 de" by a later component, a rule's
    # entity where the NER found none, the town dropped
    doc.ents = [
        Span(doc, 1, 4, label="NOMBRE_SUJETO_ASISTENCIA"),
        Span(doc, 7, 9, label="FECHAS"),
        Span(doc, 11, 12, label="OTROS_SUJETO_ASISTENCIA"),
    ]
    return doc


def test_scores_overlaps_and_near_misses():
    nlp = spacy.blank("es")
    component = nlp.add_pipe("meddocan_ent_confidence", name="ent_confidence")
    component.set_state({"calibration": POINTS})
    doc = component(annotated(nlp))
    group = doc.spans[CONFIDENCE_KEY]
    assert [(s.start, s.end) for s in group] == [(1, 4), (7, 9)]  # the rule's entity has none
    assert group.attrs["raw"] == [0.9, 0.4]
    assert group.attrs["scores"] == pytest.approx([0.95, 0.3])
    assert entity_confidence(doc)[(doc[1].idx, doc[3].idx + len(doc[3]))] == pytest.approx(0.95)
    # the town near miss is not covered by an entity: kept; the relative too
    near = doc.spans[NEAR_MISSES_KEY]
    assert [(s.start, s.label_) for s in near] == [
        (5, "TERRITORIO"),
        (13, "FAMILIARES_SUJETO_ASISTENCIA"),
    ]
    assert near.attrs["probs"] == [0.3, 0.45]


def test_without_calibration_the_probability_is_given(tmp_path):
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_ent_confidence", name="ent_confidence")
    doc = nlp.get_pipe("ent_confidence")(annotated(nlp))
    assert doc.spans[CONFIDENCE_KEY].attrs["scores"] == [0.9, 0.4]
    # saved with the pipeline
    nlp.get_pipe("ent_confidence").set_state({"calibration": POINTS})
    nlp.to_disk(tmp_path / "p")
    back = spacy.load(tmp_path / "p")
    saved = back.get_pipe("ent_confidence").calibration
    assert [v for p in saved for v in (p["x"], p["y"])] == pytest.approx(
        [v for p in POINTS for v in (p["x"], p["y"])]
    )


def test_interpolation_and_bad_points():
    assert interpolate(POINTS, 0.0) == 0.1 and interpolate(POINTS, 1.0) == 0.95
    assert interpolate(POINTS, 0.4) == pytest.approx(0.3)
    assert interpolate([], 0.37) == 0.37
    with pytest.raises(ValueError, match="point 1: x must increase"):
        check_calibration([{"x": 0.5, "y": 0.5}, {"x": 0.4, "y": 0.6}])
    with pytest.raises(ValueError, match="point 0: x and y must be within"):
        check_calibration([{"x": 1.5, "y": 0.5}])
