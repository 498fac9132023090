"""The review order of a sample: reports with the least confident span or the likeliest near
miss first, each report's scores and near misses kept for the marks file."""

import spacy
from spacy.language import Language
from spacy.tokens import Span, SpanGroup

from meddocan_deid.evidence.review_order import confidence_order, uncertainty
from meddocan_deid.evidence.sampling import SampledReport

TEXTS = {
    "sure": "Ingresa Ana Ruiz hoy.",
    "doubtful": "Ingresa Eva Sanz hoy.",
    "near": "Ingresa Luis Mora hoy.",
}
PROBS = {"Ana": 0.99, "Eva": 0.4, "Luis": 0.95}


@Language.component("invented_ner_for_order")
def invented_ner(doc):
    """Stands in for the NER: the name is an entity; Luis's report has a near miss."""
    name = Span(doc, 1, 3, label="NOMBRE_SUJETO_ASISTENCIA")
    doc.ents = [name]
    doc.spans["ner_confidence"] = SpanGroup(
        doc, spans=[name], attrs={"probs": [PROBS[doc[1].text]]}
    )
    near = [Span(doc, 3, 4, label="FECHAS")] if doc[1].text == "Luis" else []
    doc.spans["ner_near_misses"] = SpanGroup(doc, spans=near, attrs={"probs": [0.8] * len(near)})
    return doc


def test_least_certain_first():
    nlp = spacy.blank("es")
    nlp.add_pipe("invented_ner_for_order")
    nlp.add_pipe("meddocan_ent_confidence", name="ent_confidence")
    sampled = []
    for i, text in TEXTS.items():
        end = text.index(" hoy")
        found = [("NOMBRE_SUJETO_ASISTENCIA", 8, end), ("FECHAS", end + 1, end + 4)]
        sampled.append(SampledReport(i, "all", found))
    ordered = confidence_order(nlp)(sampled, TEXTS)
    # near: a near miss at 0.8; doubtful: 1 - 0.4 = 0.6; sure: 1 - 0.99
    assert [r.id for r in ordered] == ["near", "doubtful", "sure"]
    assert ordered[1].scores == [0.4, None]  # the date is not the NER's
    assert ordered[0].near == [("FECHAS", 18, 21, 0.8)] and ordered[0].scores == [0.95, None]
    assert [round(uncertainty(r), 2) for r in ordered] == [0.8, 0.6, 0.01]
