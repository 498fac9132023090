"""Word-level privacy metrics on invented texts."""

import pytest

from meddocan_deid.evaluation.metrics import privacy_counts, privacy_scores

TEXT = "Paciente Juan Pérez, vive en calle mayor 12 con su hija."
# offsets: Juan 9-13, Pérez 14-19, calle 29-34, mayor 35-40, 12 41-43, hija 51-55
GOLD = [("NOMBRE_SUJETO_ASISTENCIA", 9, 19), ("CALLE", 29, 43)]


@pytest.mark.parametrize(
    "system,expected",
    [
        # everything exact: 5 PHI words (Juan, Pérez, calle, mayor, 12), 3 identifying
        (GOLD, dict(phi_n=5, phi_tp=5, ident_n=3, ident_tp=3, nonphi_n=6, nonphi_removed=0)),
        # nothing predicted
        ([], dict(phi_n=5, phi_tp=0, ident_n=3, ident_tp=0, nonphi_n=6, nonphi_removed=0)),
        # wrong label, first name only, street number only, plus "hija" over-redacted
        (
            [("PAIS", 9, 13), ("NUMERO", 41, 43), ("FAMILIARES", 51, 55)],
            dict(phi_n=5, phi_tp=2, ident_n=3, ident_tp=2, nonphi_n=6, nonphi_removed=1),
        ),
        # a word only partly covered is not covered; "Paciente" touched counts as removed
        (
            [("X", 5, 11), ("X", 14, 43)],
            dict(phi_n=5, phi_tp=4, ident_n=3, ident_tp=2, nonphi_n=6, nonphi_removed=3),
        ),
    ],
)
def test_privacy_counts(system, expected):
    assert privacy_counts(TEXT, GOLD, system) == expected


def test_privacy_scores_ratios():
    scores = privacy_scores(
        {"a": TEXT},
        {"a": GOLD},
        {"a": [("PAIS", 9, 13), ("NUMERO", 41, 43), ("FAMILIARES", 51, 55)]},
    )
    assert scores["meddocan_phi_word_recall"] == pytest.approx(2 / 5)
    assert scores["meddocan_phi_identifying_word_recall"] == pytest.approx(2 / 3)
    assert scores["meddocan_over_redaction"] == pytest.approx(1 / 6)
    assert (scores["meddocan_phi_word_tp"], scores["meddocan_phi_word_n"]) == (2, 5)
    assert (scores["meddocan_over_redaction_removed"], scores["meddocan_over_redaction_n"]) == (
        1,
        6,
    )


def test_privacy_scores_empty_is_zero():
    assert privacy_scores({}, {}, {})["meddocan_phi_word_recall"] == 0.0


def test_scorer_reports_privacy_keys():
    import spacy
    from spacy.training import Example

    from meddocan_deid.evaluation.scorer import score_meddocan

    nlp = spacy.blank("es")
    reference = nlp.make_doc(TEXT)
    reference.ents = [reference.char_span(9, 19, "NOMBRE_SUJETO_ASISTENCIA")]
    predicted = nlp.make_doc(TEXT)
    predicted.ents = [predicted.char_span(9, 13, "PAIS")]
    scores = score_meddocan([Example(predicted, reference)])
    assert scores["meddocan_phi_word_recall"] == pytest.approx(1 / 2)
    assert scores["meddocan_phi_identifying_word_recall"] == pytest.approx(1 / 2)
    assert scores["meddocan_over_redaction"] == 0.0
