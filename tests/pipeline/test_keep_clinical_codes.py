"""The pipeline hook: an entity that is wholly a clinical code is dropped unless a key names it
as PHI; configurable kinds; saved with the pipeline. Every text here is invented."""

import spacy
from spacy.tokens import Span

from meddocan_deid.pipeline.keep_clinical_codes import KeepClinicalCodes, default_words


def tagged(nlp, text, *values, label="OTRO_NUMERO_IDENTIF"):
    """A doc of `text` with every occurrence of each value entity-tagged,
    as the NER or a rule might."""
    doc = nlp.make_doc(text)
    starts = [(i, v) for v in values for i in range(len(text)) if text.startswith(v, i)]
    doc.ents = sorted(
        (doc.char_span(i, i + len(v), label=label, alignment_mode="expand") for i, v in starts),
        key=lambda e: e.start,
    )
    return doc


def test_codes_tagged_as_phi_are_dropped():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes")
    text = (
        "Varón con SNOMED CT 22298006, variante p.(Arg175His), cariotipo 46,XX,t(9;22)(q34;q11), "
        "ingresado en cama 12 y tratado con marcapasos Medtronic Adapta ADDR01. Dr. Ruiz Gil."
    )
    doc = keep(
        tagged(
            nlp,
            text,
            "22298006",
            "p.(Arg175His)",
            "46,XX,t(9;22)(q34;q11)",
            "cama 12",
            "ADDR01",
            "Ruiz Gil",
        )
    )
    assert [e.text for e in doc.ents] == ["Ruiz Gil"]
    assert {s.label_ for s in doc.spans["clinical_codes"]} == {
        "snomed",
        "hgvs",
        "karyotype",
        "bed",
        "model",
    }


def test_a_key_keeps_the_value():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes")
    doc = keep(
        tagged(
            nlp, "NHC: 22298006. SIP 10019211. Código MedDRA PT 10019211.", "22298006", "10019211"
        )
    )
    # the record and the health card number stay; the MedDRA code after its cue goes
    assert [(e.text, e.start_char) for e in doc.ents] == [("22298006", 5), ("10019211", 19)]


def test_a_field_value_keeps_a_checked_code_but_not_a_bed():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes")
    text = "Código: C34.1. Cama: 14."
    doc = tagged(nlp, text, "C34.1", "14")
    doc.spans["fields"] = [Span(doc, e.start, e.end, label=e.label_) for e in doc.ents]
    assert [e.text for e in keep(doc).ents] == ["C34.1"]


def test_part_of_a_longer_entity_is_not_enough():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes")
    doc = keep(tagged(nlp, "Historia en el portal C34.1 Ruiz.", "C34.1 Ruiz"))
    assert [e.text for e in doc.ents] == ["C34.1 Ruiz"]


def test_kinds_are_configurable():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes", kinds=["hgvs"])
    doc = keep(tagged(nlp, "Ingresa en cama 12 con p.R175H.", "12", "p.R175H"))
    assert [e.text for e in doc.ents] == ["12"]


def test_in_the_rule_pipeline(rule_nlp):
    assert (
        rule_nlp.pipe_names.index("clinical_codes") == rule_nlp.pipe_names.index("code_shapes") + 1
    )
    doc = rule_nlp(
        "Datos del paciente.\nNHC: 22298006.\n"
        "Informe clínico del paciente: reacción adversa notificada como MedDRA PT 10019211.\n"
    )
    assert [(e.text, e.label_) for e in doc.ents] == [("22298006", "ID_SUJETO_ASISTENCIA")]
    # the keyed record number is not a code at all; the MedDRA code that code_shapes tagged is
    assert [(s.text, s.label_) for s in doc.spans["clinical_codes"]] == [("10019211", "meddra")]
    assert [s.text for s in doc.spans["code_shapes"]] == ["10019211"]


def test_saved_with_the_pipeline(tmp_path):
    nlp = spacy.blank("es")
    keep = nlp.add_pipe(
        "meddocan_keep_clinical_codes", name="clinical_codes", config={"kinds": ["ehr", "lot"]}
    )
    keep.initialize(
        words=[{"word": "Hygeia", "uses": ["ehr_product"]}, {"word": "lote", "uses": ["lot"]}]
    )
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("clinical_codes").words == keep.words
    assert loaded.get_pipe("clinical_codes").kinds == ["ehr", "lot"]
    doc = loaded(
        tagged(
            loaded,
            "Consta en Hygeia y en Diraya, lote AB1234.",
            "Hygeia",
            "Diraya",
            "AB1234",
            label="HOSPITAL",
        )
    )
    assert [e.text for e in doc.ents] == ["Diraya"]
    again = KeepClinicalCodes(nlp, "x").from_bytes(keep.to_bytes())
    assert again.words == keep.words and again.words != default_words()


def test_a_maker_keeps_its_name_and_loses_the_model():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes")
    text = "Portador de DAI Boston Scientific Resonate OXV00 desde 2019."
    doc = keep(tagged(nlp, text, "Boston Scientific Resonate OXV00", label="INSTITUCION"))
    assert [(e.text, e.label_) for e in doc.ents] == [("Boston Scientific", "INSTITUCION")]


def test_a_code_inside_a_name_leaves_the_name_whole():
    nlp = spacy.blank("es")
    keep = KeepClinicalCodes(nlp, "clinical_codes")
    text = "Vive en Residencia C34.1 Los Olmos."
    doc = keep(tagged(nlp, text, "Residencia C34.1 Los Olmos", label="INSTITUCION"))
    assert [e.text for e in doc.ents] == ["Residencia C34.1 Los Olmos"]
