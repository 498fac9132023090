"""The Presidio plugin in a real presidio-analyzer `AnalyzerEngine` for Spanish with only
`MeddocanRecognizer` (on the rule-only pipeline). Presidio's NLP engine gets a blank
spaCy `es` pipeline saved to a folder: nothing is downloaded. Invented report."""
import pytest
import spacy
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
from presidio_analyzer.nlp_engine import NlpEngineProvider

from meddocan_deid import LABELS
from meddocan_deid.deid.api import doc_spans
from meddocan_deid.presidio import DEFAULT_SCORE, MeddocanRecognizer

TEXT = ("Datos del paciente.\nNombre: Baltasar.\nApellidos: Ojeda Riquelme.\nNHC: 5512093.\n"
        "Edad: 71 años Sexo: H.\nInforme clínico del paciente: varón de 71 años con disnea.\n")


@pytest.fixture(scope="module")
def analyzer(rule_nlp, tmp_path_factory):
    blank = tmp_path_factory.mktemp("blank_es")
    spacy.blank("es").to_disk(blank)
    nlp_engine = NlpEngineProvider(nlp_configuration={
        "nlp_engine_name": "spacy", "models": [{"lang_code": "es", "model_name": str(blank)}]}).create_engine()
    registry = RecognizerRegistry(supported_languages=["es"])
    registry.add_recognizer(MeddocanRecognizer(nlp=rule_nlp))
    return AnalyzerEngine(registry=registry, nlp_engine=nlp_engine, supported_languages=["es"])


def test_recognizer_declares_spanish_and_the_meddocan_labels(rule_nlp):
    rec = MeddocanRecognizer(nlp=rule_nlp)
    assert rec.supported_language == "es"
    assert rec.get_supported_entities() == list(LABELS)
    with pytest.raises(ValueError, match="not MEDDOCAN labels"):
        MeddocanRecognizer(nlp=rule_nlp, supported_entities=["PERSON"])


def test_analyzer_engine_returns_the_pipeline_entities(analyzer, rule_nlp):
    results = sorted(analyzer.analyze(TEXT, language="es"), key=lambda r: r.start)
    assert [(r.entity_type, r.start, r.end) for r in results] == doc_spans(rule_nlp(TEXT))
    found = {TEXT[r.start:r.end] for r in results}
    assert {"Baltasar", "Ojeda Riquelme", "5512093"} <= found
    assert all(r.score == DEFAULT_SCORE for r in results)
    assert all(r.recognition_metadata[r.RECOGNIZER_NAME_KEY] == "MeddocanRecognizer" for r in results)


def test_analyzer_engine_filters_entities(analyzer):
    results = analyzer.analyze(TEXT, language="es", entities=["ID_SUJETO_ASISTENCIA"])
    assert [(r.entity_type, TEXT[r.start:r.end]) for r in results] == [("ID_SUJETO_ASISTENCIA", "5512093")]
    assert analyzer.analyze("Refiere disnea de esfuerzo.", language="es") == []


def test_load_reads_the_model_by_name_or_path(rule_nlp, tmp_path):
    rule_nlp.to_disk(tmp_path / "pipeline")
    rec = MeddocanRecognizer(model=str(tmp_path / "pipeline"))
    assert rec.nlp is not None and rec.nlp.pipe_names == rule_nlp.pipe_names
    assert [(r.entity_type, r.start, r.end) for r in rec.analyze(TEXT, None)] == doc_spans(rule_nlp(TEXT))
