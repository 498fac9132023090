"""The spaCy scorer `meddocan_deid.scorer.v1` on Examples built by hand (invented text)."""

import pytest
import spacy
from spacy.training import Example

from meddocan_deid.evaluation.scorer import make_meddocan_scorer, score_meddocan

TEXT = "Nombre: Juan Pérez.\nEdad: 45años.\n\nMédico: Ana López.\n"
# 3 non-empty lines; "45" sits inside the token "45años": it does not align to tokens.


def span(text, surface, label):
    start = text.index(surface)
    return [label, start, start + len(surface)]


GOLD = [
    span(TEXT, "Juan Pérez", "NOMBRE_SUJETO_ASISTENCIA"),
    span(TEXT, "45", "EDAD_SUJETO_ASISTENCIA"),
    span(TEXT, "Ana López", "NOMBRE_PERSONAL_SANITARIO"),
]
SYSTEM = [
    span(TEXT, "Juan Pérez", "NOMBRE_SUJETO_ASISTENCIA"),
    span(TEXT, "Ana López", "NOMBRE_SUJETO_ASISTENCIA"),  # right span, wrong label
]


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("es")


def make_doc(nlp, text, ents, user_data=None):
    doc = nlp.make_doc(text)
    spans = [doc.char_span(s, e, label=label) for label, s, e in ents]
    doc.ents = [s for s in spans if s is not None]
    doc.user_data.update(user_data or {})
    return doc


def example(
    nlp, doc_id="r1", n_sentences=3, gold_in_user_data=True, text=TEXT, gold=GOLD, system=SYSTEM
):
    user_data = {}
    if doc_id is not None:
        user_data["meddocan_id"] = doc_id
    if gold_in_user_data:
        user_data["meddocan_gold"] = [list(g) for g in gold]
    if n_sentences is not None:
        user_data["meddocan_n_sentences"] = n_sentences
    return Example(make_doc(nlp, text, system), make_doc(nlp, text, gold, user_data))


def test_misaligned_gold_counts(nlp):
    assert nlp.make_doc(TEXT).char_span(*GOLD[1][1:]) is None  # precondition: "45" does not align
    scores = score_meddocan([example(nlp)])
    # subtask 1: TP 1 (Juan Pérez); FP 1 (Ana López, wrong label); FN 2 ("45" and Ana López)
    # P = 1/2, R = 1/3, F = 2 * 1/6 / (5/6) = 0.4
    assert scores["meddocan_s1_p"] == pytest.approx(0.5)
    assert scores["meddocan_s1_r"] == pytest.approx(1 / 3)
    assert scores["meddocan_s1_f"] == pytest.approx(0.4)
    # subtask 2 (labels ignored): TP 2, FP 0, FN 1 -> P 1, R 2/3, F 0.8; nothing merges
    # (the gaps hold letters), so merged = strict
    for prefix in ("meddocan_s2_strict", "meddocan_s2_merged"):
        assert scores[f"{prefix}_p"] == pytest.approx(1.0)
        assert scores[f"{prefix}_r"] == pytest.approx(2 / 3)
        assert scores[f"{prefix}_f"] == pytest.approx(0.8)
    # leak = FN 2 / 3 official sentences
    assert scores["meddocan_s1_leak"] == pytest.approx(2 / 3)
    assert "meddocan_s1_leak_pipeline" not in scores
    # spaCy's token-level view only sees the 2 aligned gold entities: TP 1, FP 1, FN 1
    assert scores["ents_f"] == pytest.approx(0.5)
    assert set(scores["ents_per_type"]) == {"NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO"}
    assert scores["meddocan_s1_per_type"]["EDAD_SUJETO_ASISTENCIA"] == {
        "p": 0.0,
        "r": 0.0,
        "f": 0.0,
    }
    assert scores["meddocan_s1_per_type"]["NOMBRE_SUJETO_ASISTENCIA"] == {
        "p": 0.5,
        "r": 1.0,
        "f": pytest.approx(2 / 3),
    }


def test_values_are_floats_or_per_type_dicts(nlp):
    scores = score_meddocan([example(nlp), example(nlp, doc_id="r2")])
    for key, value in scores.items():
        if key.endswith("per_type"):
            assert isinstance(value, dict)
        else:
            assert isinstance(value, float), key
            assert 0.0 <= value <= 1.0, key


def test_reference_ents_without_user_data(nlp):
    # no meddocan_gold: the gold is the reference ents, so the unaligned "45" is lost:
    # TP 1, FP 1, FN 1 -> P = R = F = 0.5; no id either: the example index is the id
    eg = example(nlp, doc_id=None, gold_in_user_data=False)
    scores = score_meddocan([eg])
    assert (scores["meddocan_s1_p"], scores["meddocan_s1_r"], scores["meddocan_s1_f"]) == (
        0.5,
        0.5,
        0.5,
    )


@pytest.mark.parametrize(
    "sentences,sentencizer,key,expected",
    [
        # both official: FN (2 + 2) / (3 + 5) = 0.5
        ((3, 5), False, "meddocan_s1_leak", 4 / 8),
        # one lacks the official count: pipeline count for both docs = 3 non-empty
        # lines each -> 4 / 6
        ((3, None), False, "meddocan_s1_leak_pipeline", 4 / 6),
        # with a sentencizer the pipeline count is doc.sents: 3 sentences each ("Nombre:
        # Juan Pérez.", "Edad: 45años.", "Médico: Ana López.") -> 4 / 6
        ((None, None), True, "meddocan_s1_leak_pipeline", 4 / 6),
    ],
)
def test_leak_sources(nlp, sentences, sentencizer, key, expected):
    examples = [example(nlp, doc_id=f"r{i}", n_sentences=n) for i, n in enumerate(sentences)]
    if sentencizer:
        senter = spacy.blank("es")
        senter.add_pipe("sentencizer")
        for eg in examples:
            eg.predicted = senter(eg.predicted)
    scores = score_meddocan(examples)
    assert scores[key] == pytest.approx(expected)
    other = "meddocan_s1_leak" if key.endswith("pipeline") else "meddocan_s1_leak_pipeline"
    assert other not in scores


def test_repeated_ids_are_all_counted(nlp):
    # the same report twice: every count doubles, so P/R/F stay the same, leak too
    one = score_meddocan([example(nlp)])
    two = score_meddocan([example(nlp), example(nlp)])
    for key in ("meddocan_s1_f", "meddocan_s2_merged_f", "meddocan_s1_leak"):
        assert two[key] == pytest.approx(one[key])


def test_no_document_text_in_errors(nlp):
    eg = example(nlp, gold=[["X", 0, 999]])  # offsets beyond the text
    with pytest.raises(ValueError) as err:
        score_meddocan([eg])
    assert "r1" in str(err.value) and "Juan" not in str(err.value)


def test_registered_and_used_by_a_component(nlp):
    assert spacy.registry.scorers.get("meddocan_deid.scorer.v1")() is score_meddocan
    assert make_meddocan_scorer() is score_meddocan
    pipe = spacy.blank("es")
    ruler = pipe.add_pipe(
        "entity_ruler", config={"scorer": {"@scorers": "meddocan_deid.scorer.v1"}}
    )
    ruler.add_patterns([{"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Juan Pérez"}])
    eg = example(pipe)
    scores = pipe.evaluate([Example(pipe.make_doc(TEXT), eg.reference)])
    # ruler finds only Juan Pérez: TP 1, FP 0, FN 2 -> P 1, R 1/3, leak 2/3
    assert scores["meddocan_s1_p"] == pytest.approx(1.0)
    assert scores["meddocan_s1_r"] == pytest.approx(1 / 3)
    assert scores["meddocan_s1_leak"] == pytest.approx(2 / 3)
