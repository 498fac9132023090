"""The Presidio plugin in a real presidio-analyzer `AnalyzerEngine` for Spanish with only
`MeddocanRecognizer` (on the rule-only pipeline), then presidio-anonymizer on its results.
Presidio's NLP engine gets a blank spaCy `es` pipeline saved to a folder: nothing is
downloaded. Invented reports; the identifiers are made up (check letters computed)."""

import time

import pytest
import spacy
from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
from presidio_analyzer.nlp_engine import NlpEngineProvider
from presidio_anonymizer import AnonymizerEngine
from presidio_anonymizer.entities import OperatorConfig
from spacy.tokens import Span

from meddocan_deid import LABELS
from meddocan_deid.deid.pieces import doc_spans
from meddocan_deid.presidio import LABEL_KEY, SOURCE_KEY, MeddocanRecognizer
from meddocan_deid.presidio_entities import (
    ENTITY_NAMES,
    PRESIDIO_ENTITIES,
    SOURCE_SCORES,
    allowed_mask,
    entity_sources,
    presidio_entity,
)

TEXT = (
    "Datos del paciente.\nNombre: Baltasar.\nApellidos: Ojeda Riquelme.\nNHC: 5512093.\n"
    "Edad: 71 años Sexo: H.\nInforme clínico del paciente: varón de 71 años con disnea. "
    "Baltasar refiere tos.\n"
)
# a valid DNI and one with a wrong letter, an IBAN, an e-mail, a phone, an IP address, a URL
IDS = (
    "Datos del paciente.\nNombre: Leocadia.\nDNI: 30541872B.\nNASS: 30541872K.\n"
    "Informe clínico del paciente: cuenta para recibos ES9121000418450200051332, "
    "contacto leocadia@correo-inventado.es, móvil 622 418 907, servidor 10.20.30.40, "
    "web http://www.clinica-inventada.es. Su hermana de 68 años vive en Tolosa.\n"
)


@pytest.fixture(scope="module")
def nlp_engine(tmp_path_factory):
    blank = tmp_path_factory.mktemp("blank_es")
    spacy.blank("es").to_disk(blank)
    return NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "es", "model_name": str(blank)}],
        }
    ).create_engine()


def engine_with(nlp_engine, recognizer):
    registry = RecognizerRegistry(supported_languages=["es"])
    registry.add_recognizer(recognizer)
    return AnalyzerEngine(registry=registry, nlp_engine=nlp_engine, supported_languages=["es"])


@pytest.fixture(scope="module")
def analyzer(rule_nlp, nlp_engine):
    return engine_with(nlp_engine, MeddocanRecognizer(nlp=rule_nlp))


def found(results, text):
    return sorted((r.entity_type, text[r.start : r.end], r.score) for r in results)


# -- the mapping and the sources -----------------------------------------------------------


def test_the_mapping_covers_every_label_and_checks_identifier_values():
    assert set(PRESIDIO_ENTITIES) == set(LABELS)
    assert PRESIDIO_ENTITIES["NOMBRE_PERSONAL_SANITARIO"] == "PERSON"
    assert PRESIDIO_ENTITIES["CALLE"] == PRESIDIO_ENTITIES["PAIS"] == "LOCATION"
    assert PRESIDIO_ENTITIES["PROFESION"] == "PROFESION"  # no Presidio counterpart: its own name
    assert presidio_entity("ID_SUJETO_ASISTENCIA", "30541872B") == "ES_NIF"
    assert presidio_entity("ID_SUJETO_ASISTENCIA", "30.541.872-B") == "ES_NIF"
    assert presidio_entity("ID_SUJETO_ASISTENCIA", "30541872K") == "ID"  # wrong letter: not a NIF
    assert presidio_entity("ID_SUJETO_ASISTENCIA", "Y2345678Z") == "ES_NIE"
    assert (
        presidio_entity("ID_SUJETO_ASISTENCIA", "ecuatoriana") == "NRP"
    )  # population group (P17.2)
    assert (
        presidio_entity("OTROS_SUJETO_ASISTENCIA", "ES91 2100 0418 4502 0005 1332") == "IBAN_CODE"
    )
    assert (
        presidio_entity("OTROS_SUJETO_ASISTENCIA", "ES91 2100 0418 4502 0005 1333")
        == "OTROS_SUJETO_ASISTENCIA"
    )
    assert presidio_entity("DIREC_PROT_INTERNET", "10.20.30.40") == "IP_ADDRESS"
    assert presidio_entity("DIREC_PROT_INTERNET", "http://www.clinica-inventada.es") == "URL"
    assert presidio_entity("FAMILIARES_SUJETO_ASISTENCIA", "68 años") == "AGE"
    assert presidio_entity("FAMILIARES_SUJETO_ASISTENCIA", "hermana") == "PERSON"
    assert len(set(SOURCE_SCORES.values())) >= 7  # never one constant


def test_sources_follow_the_span_groups_and_the_rest_is_the_ner():
    nlp = spacy.blank("es")
    doc = nlp("Ana vio a Luis en Tolosa con el código AB12345 y la fecha 3 de mayo en Lugo")
    span = lambda s, e, label: Span(doc, s, e, label=label)  # noqa: E731
    ana, luis, tolosa = (
        span(0, 1, "NOMBRE_SUJETO_ASISTENCIA"),
        span(3, 4, "NOMBRE_PERSONAL_SANITARIO"),
        span(5, 6, "TERRITORIO"),
    )
    code, date, lugo = (
        span(9, 10, "OTRO_NUMERO_IDENTIF"),
        span(13, 16, "FECHAS"),
        span(17, 18, "TERRITORIO"),
    )
    doc.ents = [ana, luis, tolosa, code, date, lugo]
    doc.spans["rule_entities"] = [
        span(0, 1, "FAMILIARES_SUJETO_ASISTENCIA"),
        date,
    ]  # relabelled later
    doc.spans["trusted_phi"] = [date]  # the rule group comes first
    doc.spans["fallback_entities"] = [tolosa]
    doc.spans["code_shapes"] = [code]
    doc.spans["privacy_added"] = [lugo]
    assert [s[3] for s in entity_sources(doc)] == [
        "rule",
        "ner",
        "fallback",
        "code_shape",
        "rule",
        "privacy_high",
    ]
    assert SOURCE_SCORES["ner"] not in {
        SOURCE_SCORES[s] for s in ("rule", "field", "propagated", "identifier")
    }


def test_pipeline_sources_keyed_fields_checked_identifiers_and_propagation(rule_nlp):
    by_text = {(TEXT[s:e], s > 100): src for _l, s, e, src in entity_sources(rule_nlp(TEXT))}
    assert by_text[("Baltasar", False)] == "field"  # `Nombre: Baltasar`
    assert by_text[("Baltasar", True)] == "propagated"  # the same name later in the report
    assert by_text[("71 años", True)] == "rule"  # `varón de 71 años`
    ids = {IDS[s:e]: src for _l, s, e, src in entity_sources(rule_nlp(IDS))}
    assert ids["30541872B"] == ids["ES9121000418450200051332"] == "checked_identifier"
    assert ids["leocadia@correo-inventado.es"] == ids["622 418 907"] == "identifier"


def test_allow_list_matches_as_presidio():
    text = "Ana Ruiz y ANA en Lugo"
    spans = [(0, 8), (11, 14), (18, 22)]
    assert allowed_mask(text, spans, ["Ana Ruiz", "Lug"]) == [
        True,
        False,
        False,
    ]  # exact: the whole text
    assert allowed_mask(text, spans, ["^ana", ""], "regex") == [
        True,
        True,
        False,
    ]  # search, ignoring case
    assert allowed_mask(text, spans, ["^ana"], "regex", flags=0) == [False, False, False]
    assert allowed_mask(text, spans, [""], "regex") == [False, False, False]
    with pytest.raises(ValueError, match="exact"):
        allowed_mask(text, spans, ["x"], "fuzzy")


def test_allow_list_regexes_have_a_time_limit():
    text = "a" * 40 + "! Lugo"
    start = time.monotonic()
    # the first regex backtracks past the limit: neither span is checked, both stay reported
    assert allowed_mask(
        text, [(0, 41), (42, 46)], ["(a|aa)+$", "^Lugo$"], "regex", timeout=0.2
    ) == [False, False]
    assert time.monotonic() - start < 2
    assert allowed_mask(text, [(42, 46)], ["(a|aa)+$", "^Lugo$"], "regex", timeout=0.2) == [True]


# -- the recognizer ------------------------------------------------------------------------


def test_recognizer_declares_spanish_labels_and_presidio_names(rule_nlp):
    rec = MeddocanRecognizer(nlp=rule_nlp)
    assert rec.supported_language == "es"
    assert rec.get_supported_entities() == list(ENTITY_NAMES)
    assert set(LABELS) | {"PERSON", "LOCATION", "ES_NIF", "IBAN_CODE"} <= set(ENTITY_NAMES)
    assert MeddocanRecognizer(
        nlp=rule_nlp, supported_entities=["PERSON"]
    ).get_supported_entities() == ["PERSON"]
    with pytest.raises(ValueError, match="neither MEDDOCAN labels nor Presidio names"):
        MeddocanRecognizer(nlp=rule_nlp, supported_entities=["CREDIT_CARD"])
    with pytest.raises(ValueError, match="entity names"):
        MeddocanRecognizer(nlp=rule_nlp, entity_names="spacy")
    with pytest.raises(ValueError, match="unknown source"):
        MeddocanRecognizer(nlp=rule_nlp, scores={"gazetteer": 0.5})
    with pytest.raises(ValueError, match="within"):
        MeddocanRecognizer(nlp=rule_nlp, scores={"ner": 1.5})


def test_analyzer_engine_returns_the_pipeline_entities_with_presidio_names_and_scores(
    analyzer, rule_nlp
):
    results = sorted(analyzer.analyze(TEXT, language="es"), key=lambda r: r.start)
    spans = doc_spans(rule_nlp(TEXT))
    assert [(r.start, r.end) for r in results] == [(s, e) for _l, s, e in spans]
    assert [r.entity_type for r in results] == [
        presidio_entity(lab, TEXT[s:e]) for lab, s, e in spans
    ]
    assert [r.recognition_metadata[LABEL_KEY] for r in results] == [lab for lab, _s, _e in spans]
    assert ("PERSON", "Baltasar", 0.95) in found(results, TEXT) and (
        "PERSON",
        "Baltasar",
        0.8,
    ) in found(results, TEXT)
    assert ("ID", "5512093", 0.95) in found(results, TEXT) and ("AGE", "71 años", 0.85) in found(
        results, TEXT
    )
    assert all(r.score == SOURCE_SCORES[r.recognition_metadata[SOURCE_KEY]] for r in results)
    assert all(
        r.recognition_metadata[r.RECOGNIZER_NAME_KEY] == "MeddocanRecognizer" for r in results
    )
    assert all(r.analysis_explanation is None for r in results)  # return_decision_process is off
    assert analyzer.analyze("Refiere disnea de esfuerzo.", language="es") == []


def test_identifiers_get_presidio_identifier_names(analyzer):
    got = found(analyzer.analyze(IDS, language="es"), IDS)
    for entity in [
        ("ES_NIF", "30541872B", 1.0),
        ("IBAN_CODE", "ES9121000418450200051332", 1.0),
        ("EMAIL_ADDRESS", "leocadia@correo-inventado.es", 0.95),
        ("PHONE_NUMBER", "622 418 907", 0.95),
        ("IP_ADDRESS", "10.20.30.40", 0.95),
        ("URL", "http://www.clinica-inventada.es", 0.95),
        ("AGE", "68 años", 0.85),
        ("LOCATION", "Tolosa", 0.85),
        ("PERSON", "Leocadia", 0.95),
    ]:
        assert entity in got
    assert not any(
        text == "30541872K" and name == "ES_NIF" for name, text, _ in got
    )  # wrong check letter


def test_entities_in_presidio_names_or_meddocan_labels(analyzer, rule_nlp):
    persons = analyzer.analyze(TEXT, language="es", entities=["PERSON"])
    assert found(persons, TEXT) == [
        ("PERSON", "Baltasar", 0.8),
        ("PERSON", "Baltasar", 0.95),
        ("PERSON", "Ojeda Riquelme", 0.95),
    ]
    # only MEDDOCAN labels asked: MEDDOCAN labels answered
    ids = analyzer.analyze(TEXT, language="es", entities=["ID_SUJETO_ASISTENCIA"])
    assert [(r.entity_type, TEXT[r.start : r.end]) for r in ids] == [
        ("ID_SUJETO_ASISTENCIA", "5512093")
    ]
    forced = engine_with(
        analyzer.nlp_engine, MeddocanRecognizer(nlp=rule_nlp, entity_names="meddocan")
    )
    assert {r.entity_type for r in forced.analyze(TEXT, language="es", entities=["PERSON"])} == {
        "NOMBRE_SUJETO_ASISTENCIA"
    }
    only_persons = engine_with(
        analyzer.nlp_engine, MeddocanRecognizer(nlp=rule_nlp, supported_entities=["PERSON"])
    )
    assert {r.entity_type for r in only_persons.analyze(TEXT, language="es")} == {"PERSON"}


def test_score_threshold_allow_list_and_decision_process_as_presidio(analyzer):
    kept = analyzer.analyze(TEXT, language="es", entities=["PERSON", "AGE"], score_threshold=0.9)
    assert found(kept, TEXT) == [
        ("AGE", "71 años", 0.95),
        ("PERSON", "Baltasar", 0.95),
        ("PERSON", "Ojeda Riquelme", 0.95),
    ]
    allowed = analyzer.analyze(TEXT, language="es", entities=["PERSON"], allow_list=["Baltasar"])
    assert found(allowed, TEXT) == [("PERSON", "Ojeda Riquelme", 0.95)]
    by_regex = analyzer.analyze(
        TEXT, language="es", entities=["PERSON"], allow_list=["riquelme$"], allow_list_match="regex"
    )
    assert sorted(TEXT[r.start : r.end] for r in by_regex) == ["Baltasar", "Baltasar"]
    explained = analyzer.analyze(TEXT, language="es", entities=["ID"], return_decision_process=True)
    assert len(explained) == 1
    explanation = explained[0].analysis_explanation
    assert explanation.recognizer == "MeddocanRecognizer" and explanation.pattern_name == "field"
    assert explanation.original_score == explanation.score == 0.95
    assert "ID_SUJETO_ASISTENCIA" in explanation.textual_explanation


def test_custom_scores(rule_nlp):
    rec = MeddocanRecognizer(nlp=rule_nlp, scores={"propagated": 0.3})
    scores = {(TEXT[r.start : r.end], r.score) for r in rec.analyze(TEXT, ["PERSON"])}
    assert scores == {("Baltasar", 0.95), ("Baltasar", 0.3), ("Ojeda Riquelme", 0.95)}


def test_anonymizer_replaces_the_persons_and_keeps_the_allowed(analyzer):
    text = TEXT + "Baltasar vuelve en una semana.\n"
    results = analyzer.analyze(
        text, language="es", entities=["PERSON"], allow_list=["Ojeda Riquelme"], score_threshold=0.5
    )
    out = AnonymizerEngine().anonymize(
        text=text,
        analyzer_results=results,
        operators={"PERSON": OperatorConfig("replace", {"new_value": "<PERSONA>"})},
    )
    assert "Baltasar" not in out.text
    assert out.text.count("<PERSONA>") == 3
    assert "Apellidos: Ojeda Riquelme." in out.text  # allowed
    assert "NHC: 5512093." in out.text and "71 años" in out.text  # not asked for
    assert {i.entity_type for i in out.items} == {"PERSON"}


def test_load_reads_the_model_by_name_or_path(rule_nlp, tmp_path):
    rule_nlp.to_disk(tmp_path / "pipeline")
    rec = MeddocanRecognizer(model=str(tmp_path / "pipeline"), entity_names="meddocan")
    assert rec.nlp is not None and rec.nlp.pipe_names == rule_nlp.pipe_names
    assert [(r.entity_type, r.start, r.end) for r in rec.analyze(TEXT, None)] == doc_spans(
        rule_nlp(TEXT)
    )
