"""The Python API as a library user meets it: a typed `meddocan_deid.deidentify`, the
pipeline loaded once per process and name, a policy given as a dict, and kinship words
kept in every mode. All texts are invented."""

import inspect
from pathlib import Path

import pytest
import spacy

import meddocan_deid
from meddocan_deid.deid import api
from meddocan_deid.deid.options import DeidOptions

KEY = b"0123456789abcdef0123456789abcdef"
FAMILY = "FAMILIARES_SUJETO_ASISTENCIA"


def make_doc(text, ents):
    doc = spacy.blank("es")(text)
    spans = []
    for label, surface in ents:
        start = text.index(surface)
        spans.append(
            doc.char_span(start, start + len(surface), label=label, alignment_mode="expand")
        )
    doc.ents = spans
    return doc


def test_deidentify_has_a_typed_signature():
    params = inspect.signature(meddocan_deid.deidentify).parameters
    assert list(params)[:3] == ["doc_or_text", "mode", "key"]
    assert "model" in params and params["mode"].default == "tag"
    assert meddocan_deid.deidentify is api.deidentify


def test_the_pipeline_loads_once_per_process_and_name(monkeypatch, rule_nlp):
    loads = []

    def counting_load(model, privacy=None):
        loads.append((model, privacy))
        return rule_nlp

    monkeypatch.setattr(api, "load_with_privacy", counting_load)
    api.load_pipeline.cache_clear()
    try:
        text = "Nombre: Baltasar.\nApellidos: Ojeda Riquelme.\nNHC: 5512093.\n"
        first = meddocan_deid.deidentify(text, model="a-test-model")
        second = meddocan_deid.deidentify(text, model="a-test-model")
        assert first == second and "5512093" not in first.text
        assert loads == [("a-test-model", None)]
        meddocan_deid.deidentify(text, model="another-test-model")
        assert loads == [("a-test-model", None), ("another-test-model", None)]
    finally:
        api.load_pipeline.cache_clear()


def test_two_calls_load_the_model_once(monkeypatch, rule_nlp):
    """Counted at spaCy's loader, below every loader of the package:
    the second call loads nothing."""
    loads = []

    def counting_spacy_load(name, *args, **kwargs):
        loads.append(name)
        return rule_nlp

    monkeypatch.setattr(spacy, "load", counting_spacy_load)
    api.load_pipeline.cache_clear()
    try:
        text = "Nombre: Baltasar.\nApellidos: Ojeda Riquelme.\nNHC: 5512093.\n"
        meddocan_deid.deidentify(text, model="a-counted-model")
        assert loads == ["a-counted-model"]
        meddocan_deid.deidentify(text, mode="mask", model="a-counted-model")
        assert loads == ["a-counted-model"]
    finally:
        api.load_pipeline.cache_clear()


def test_a_policy_as_a_dict_equals_the_same_policy_as_a_file(tmp_path):
    text = "Ingresa el 12/03/2019. Teléfono 612 345 678."
    doc = make_doc(text, [("FECHAS", "12/03/2019"), ("NUMERO_TELEFONO", "612 345 678")])
    path = Path(tmp_path) / "policy.toml"
    path.write_text('[operators]\nFECHAS = "keep"\nNUMERO_TELEFONO = "mask"\n', encoding="utf-8")
    as_dict = meddocan_deid.deidentify(
        doc, policy={"operators": {"FECHAS": "keep", "NUMERO_TELEFONO": "mask"}}
    )
    assert as_dict == meddocan_deid.deidentify(doc, policy=path)
    assert as_dict.text == "Ingresa el 12/03/2019. Teléfono *** *** ***."
    with pytest.raises(Exception, match="operators.FECHAS"):
        meddocan_deid.deidentify(doc, policy={"operators": {"FECHAS": "shred"}})
    with pytest.raises(TypeError, match="policy must be"):
        meddocan_deid.deidentify(doc, policy=42)


@pytest.mark.parametrize("mode", ["tag", "mask", "redact", "surrogate"])
def test_kinship_words_alone_are_kept_in_every_mode(mode):
    text = "Su madre falleció de un infarto. Su pareja le acompaña."
    doc = make_doc(text, [(FAMILY, "madre"), (FAMILY, "pareja")])
    kept = meddocan_deid.deidentify(doc, mode=mode, key=KEY)
    assert kept.text == text
    replaced = meddocan_deid.deidentify(doc, mode=mode, key=KEY, keep_kinship=False)
    assert "madre" not in replaced.text and "pareja" not in replaced.text


@pytest.mark.parametrize("mode", ["tag", "mask", "redact", "surrogate"])
def test_a_relative_named_in_lower_case_is_never_kept(mode):
    text = "acude con su hija carmen, que refiere el cuadro."
    doc = make_doc(text, [(FAMILY, "su hija carmen")])
    result = meddocan_deid.deidentify(doc, mode=mode, key=KEY)
    assert "carmen" not in result.text
    if mode == "surrogate":
        assert "su hija " in result.text  # the kinship words stay, the name does not


def test_keep_kinship_is_on_by_default():
    assert DeidOptions().keep_kinship is True


@pytest.mark.parametrize("value", ["Pareja Mayor", "la Nieto", "Hermano Mayor"])
def test_surnames_that_read_as_kinship_words_are_not_kept(value):
    text = f"Acompaña {value} a la consulta."
    doc = make_doc(text, [(FAMILY, value)])
    assert value not in meddocan_deid.deidentify(doc, mode="tag").text
