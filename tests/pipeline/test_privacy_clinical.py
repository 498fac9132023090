"""The `high` privacy level never removes common clinical words (configs/patterns/
clinical_words.txt): a candidate whose words are all in the list is dropped. The
general-Spanish model and the lexicon are invented stand-ins that flag every capitalised
word, so the tests show the list alone keeps the clinical words."""

import importlib.util
from pathlib import Path

import pytest
import spacy
from spacy.lookups import load_lookups

from meddocan_deid.pipeline.patterns import PatternFileError, load_word_list
from meddocan_deid.pipeline.privacy import Privacy, validate_rules

ROOT = Path(__file__).parent.parent.parent
WORDS = ROOT / "configs" / "patterns" / "clinical_words.txt"
HAND = ROOT / "configs" / "patterns" / "clinical_terms.txt"
CLINICAL = ["Disnea", "Urgencias", "Cardiología", "TAC", "EPOC"]
TEXT = (
    "Informe clínico del paciente:\n"
    "Disnea de esfuerzo. Valorada en Urgencias por Cardiología con TAC, "
    "sin EPOC conocida. Vive en Quelvoria con Arnaldo Pizarrete.\n"
)

RULES = validate_rules(
    [
        {
            "id": "body/rare",
            "source": "lexicon",
            "sections": ["body"],
            "shape": "capitalised",
            "max_log_prob": -9.0,
            "label": "OTROS_SUJETO_ASISTENCIA",
        },
        {
            "id": "body/generic",
            "source": "generic_ner",
            "sections": ["body"],
            "labels": {
                "ORG": "INSTITUCION",
                "LOC": "TERRITORIO",
                "PER": "NOMBRE_SUJETO_ASISTENCIA",
            },
        },
    ]
)


def generic_model(_name):
    nlp = spacy.blank("es")
    nlp.add_pipe("entity_ruler").add_patterns(
        [
            {"label": "ORG", "pattern": "Urgencias por Cardiología"},
            {"label": "LOC", "pattern": "Quelvoria"},
            {"label": "PER", "pattern": "Arnaldo Pizarrete"},
        ]
    )
    return nlp


def privacy(nlp, words):
    component = Privacy(
        nlp, "privacy", level="high", log_prob=lambda w: -20.0, generic_loader=generic_model
    )
    component.initialize(rules=RULES, clinical_words=words)
    return component


@pytest.fixture(scope="module")
def shipped_words():
    return load_word_list(WORDS)


def added(rule_nlp, words):
    with rule_nlp.select_pipes(disable=["privacy"]):
        doc = rule_nlp(TEXT)
    return [s.text for s in privacy(rule_nlp, words)(doc).spans["privacy_added"]]


def test_clinical_words_are_never_removed(rule_nlp, shipped_words):
    found = added(rule_nlp, shipped_words)
    for word in CLINICAL:
        assert all(word not in text.split() for text in found), word
    # what is not clinical is still removed
    assert "Quelvoria" in found and "Arnaldo Pizarrete" in found


def test_without_the_list_the_stand_ins_flag_them(rule_nlp):
    found = " ".join(added(rule_nlp, []))
    for word in CLINICAL:
        assert word in found


def test_the_shipped_pipeline_reads_the_list(rule_nlp):
    words = rule_nlp.get_pipe("privacy").clinical_words
    assert {w.lower() for w in CLINICAL} <= words


def test_a_span_with_a_number_or_a_rare_word_is_not_clinical(rule_nlp, shipped_words):
    component = privacy(rule_nlp, shipped_words)
    doc = rule_nlp.make_doc("Urgencias 14 de Cardiología y Urgencias Quelvoria")
    assert component.is_clinical(doc[0:1]) and component.is_clinical(doc[2:4])
    assert not component.is_clinical(doc[0:2])  # a number
    assert not component.is_clinical(doc[5:7])  # a rare word
    assert not component.is_clinical(doc[4:4])  # no word


def test_the_list_is_saved_with_the_component(rule_nlp, shipped_words, tmp_path):
    component = privacy(rule_nlp, shipped_words)
    other = Privacy(rule_nlp, "privacy").from_bytes(component.to_bytes())
    assert other.clinical_words == component.clinical_words
    component.to_disk(tmp_path / "privacy")
    assert (
        Privacy(rule_nlp, "privacy").from_disk(tmp_path / "privacy").clinical_words
        == component.clinical_words
    )
    # a component saved before the list existed loads with an empty list
    (tmp_path / "privacy" / "clinical_words.txt").unlink()
    assert (
        Privacy(rule_nlp, "privacy").from_disk(tmp_path / "privacy").clinical_words == frozenset()
    )


def test_the_committed_list_is_lexicon_words_or_hand_terms(shipped_words):
    """The file holds only words of spaCy's Spanish lexicon or of the hand-written terms:
    nothing that only the corpus knows (a name, a rare place)."""
    table = load_lookups("es", ["lexeme_prob"]).get_table("lexeme_prob")
    hand = set(load_word_list(HAND))
    assert shipped_words == sorted(set(shipped_words))
    assert [w for w in shipped_words if w not in table and w not in hand] == []


def load_script():
    spec = importlib.util.spec_from_file_location(
        "clinical_words_script", ROOT / "experiments" / "clinical_words.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_keeps_only_words_of_many_reports():
    script = load_script()
    texts = [f"El paciente refiere disnea y tos en el informe número {i}." for i in range(25)]
    texts[0] += " Consulta con Zubeldegui."  # a surname in one report
    texts += ["Vive en Villarcayo." for _ in range(25)]  # a place: capitalised every time
    texts += ["cefalea intensa" for _ in range(3)]  # a word of three reports
    df, lower, total = script.document_frequency(texts)
    lexicon = {
        "paciente",
        "refiere",
        "disnea",
        "tos",
        "en",
        "el",
        "informe",
        "número",
        "villarcayo",
        "zubeldegui",
        "cefalea",
        "vive",
        "y",
        "consulta",
        "con",
    }
    words = script.clinical_words(
        df, lower, total, 20, lexicon.__contains__, {"tac"}, excluded={"tos"}
    )
    assert {"disnea", "refiere", "informe", "tac"} <= words
    assert "zubeldegui" not in words  # one report
    assert "villarcayo" not in words  # mostly capitalised: a proper name
    assert "cefalea" not in words  # fewer than 20 reports
    assert "tos" not in words  # excluded (a gazetteer entry)
    assert "intensa" not in words  # not in the lexicon
    with pytest.raises(ValueError, match="min_docs"):
        script.clinical_words(df, lower, total, 1, lexicon.__contains__, set(), set())


def test_word_list_errors_name_the_file_and_line(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("# comment\ndisnea\nDos Palabras\n", encoding="utf-8")
    with pytest.raises(PatternFileError, match=r"words\.txt:3"):
        load_word_list(path)
    with pytest.raises(PatternFileError, match="not found"):
        load_word_list(tmp_path / "missing.txt")
