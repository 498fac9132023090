"""MEDDOCAN metrics on hand-made gold/system pairs; every expected number is worked out
in the comments. Texts are invented, offsets come from `at()` so they stay readable."""

import pytest

from meddocan_deid.evaluation.metrics import (
    EvaluationError,
    count_sentences,
    evaluate,
    leak,
    merge_spans,
    prf,
)


def at(text, surface, label="X", nth=0):
    """(label, start, end) of the nth occurrence of `surface` in `text`."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(surface, start + 1)
    return (label, start, start + len(surface))


def counts(scores, prefix):
    return tuple(scores[f"meddocan_{prefix}_{k}"] for k in ("tp", "fp", "fn"))


# ---------------------------------------------------------------------------- prf


@pytest.mark.parametrize(
    "tp,fp,fn,expected",
    [
        (0, 0, 0, (0.0, 0.0, 0.0)),  # every denominator is 0
        (1, 1, 0, (0.5, 1.0, 2 * 0.5 * 1.0 / 1.5)),  # P=1/2, R=1/1, F=2PR/(P+R)=2/3
        (3, 1, 2, (0.75, 0.6, 2 * 0.75 * 0.6 / 1.35)),  # P=3/4, R=3/5, F=0.9/1.35=2/3
        (0, 2, 1, (0.0, 0.0, 0.0)),  # P+R = 0
    ],
)
def test_prf(tp, fp, fn, expected):
    assert prf(tp, fp, fn) == pytest.approx(expected)


# ---------------------------------------------------------------------- merge_spans

MERGE_TEXT = "aa, bb - cc y dd.ee"
#             0123456789012345678
# aa=0-2  bb=4-6  cc=9-11  dd=14-16  ee=17-19


@pytest.mark.parametrize(
    "spans,expected",
    [
        ([(0, 2), (4, 6)], [(0, 6)]),  # gap ", " has no alphanumeric: merged
        ([(4, 6), (9, 11)], [(4, 11)]),  # gap " - ": merged
        ([(9, 11), (14, 16)], [(9, 11), (14, 16)]),  # gap " y " has a letter: kept apart
        ([(14, 16), (17, 19)], [(14, 19)]),  # gap ".": merged
        ([(4, 6), (0, 2), (9, 11)], [(0, 11)]),  # unsorted input, chained merges
        ([(0, 6), (4, 11)], [(0, 11)]),  # overlap: empty gap text[6:4], merged
        ([(0, 11), (4, 6)], [(0, 6)]),  # contained span: (last start, next end), as defined
        ([(0, 2), (0, 2)], [(0, 2)]),  # duplicates count once
        ([], []),
    ],
)
def test_merge_spans(spans, expected):
    assert merge_spans(spans, MERGE_TEXT) == expected


# ------------------------------------------------------------ single-document table

T_COMMA = "Domicilio: Calle Mayor, 5. Fin"
T_DASH = "Fechas: 12/03/2019 - 15/03/2019."
T_NAME = "Paciente: Juan Pérez García y su hermano Luis."

CASES = {
    # gold one span "Calle Mayor, 5"; system split at ", " into "Calle Mayor" and "5".
    # s1/s2 strict: TP 0, FP 2 (both pieces), FN 1.
    # merged: system pieces merge to the gold span -> TP {span} = 1; the pieces are
    # contained in a TP span (no FP); the gold span is in TP (no FN) -> 1, 0, 0.
    "split at comma": (
        T_COMMA,
        [at(T_COMMA, "Calle Mayor, 5", "CALLE")],
        [at(T_COMMA, "Calle Mayor", "CALLE"), at(T_COMMA, "5", "CALLE")],
        (0, 2, 1),
        (0, 2, 1),
        (1, 0, 0),
    ),
    # gold two dates split at " - "; system one span over both.
    # strict: TP 0, FP 1, FN 2. merged: gold merges to the system span -> TP 1,
    # the system span is TP, both gold dates are contained in it -> 1, 0, 0.
    "split at dash": (
        T_DASH,
        [at(T_DASH, "12/03/2019", "FECHAS"), at(T_DASH, "15/03/2019", "FECHAS")],
        [at(T_DASH, "12/03/2019 - 15/03/2019", "FECHAS")],
        (0, 1, 2),
        (0, 1, 2),
        (1, 0, 0),
    ),
    # right span, wrong label: subtask 1 TP 0, FP 1, FN 1; subtask 2 ignores the
    # label: strict TP 1, merged TP 1.
    "label mismatch": (
        T_NAME,
        [at(T_NAME, "Juan Pérez García", "NOMBRE_SUJETO_ASISTENCIA")],
        [at(T_NAME, "Juan Pérez García", "NOMBRE_PERSONAL_SANITARIO")],
        (0, 1, 1),
        (1, 0, 0),
        (1, 0, 0),
    ),
    # duplicate gold (a set: one) and overlapping system spans "Juan Pérez García",
    # "García y su": s1 TP 1, FP 1, FN 0. merged: system gap is empty (overlap) so
    # system merges to "Juan ... su", gold stays "Juan Pérez García" -> no merged
    # match; TP = strict {gold} = 1; "García y su" is not inside it -> FP 1; FN 0.
    "duplicate and overlapping": (
        T_NAME,
        [at(T_NAME, "Juan Pérez García", "N"), at(T_NAME, "Juan Pérez García", "N")],
        [at(T_NAME, "Juan Pérez García", "N"), at(T_NAME, "García y su", "N")],
        (1, 1, 0),
        (1, 1, 0),
        (1, 1, 0),
    ),
    # " y " holds letters: no merge. gold "Juan Pérez García", "Luis"; system
    # "Juan Pérez" (partial) and "Luis": every count the same in the three views:
    # TP 1 (Luis), FP 1 (Juan Pérez), FN 1 (Juan Pérez García).
    "partial match, no merge": (
        T_NAME,
        [at(T_NAME, "Juan Pérez García", "N"), at(T_NAME, "Luis", "N")],
        [at(T_NAME, "Juan Pérez", "N"), at(T_NAME, "Luis", "N")],
        (1, 1, 1),
        (1, 1, 1),
        (1, 1, 1),
    ),
    # no gold: the one prediction is an FP everywhere.
    "no gold": (T_NAME, [], [at(T_NAME, "Luis", "N")], (0, 1, 0), (0, 1, 0), (0, 1, 0)),
    # no predictions: both gold spans are FN everywhere ("Juan" and "Pérez" merge in the
    # gold, but nothing matches it, so nothing is contained in a TP span).
    "no predictions": (
        T_NAME,
        [at(T_NAME, "Juan", "N"), at(T_NAME, "Pérez", "N")],
        [],
        (0, 0, 2),
        (0, 0, 2),
        (0, 0, 2),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_single_document(name):
    text, gold, system, s1, s2, merged = CASES[name]
    scores = evaluate({"d": (text, gold)}, {"d": system})
    assert counts(scores, "s1") == s1
    assert counts(scores, "s2_strict") == s2
    assert counts(scores, "s2_merged") == merged
    for prefix, c in (("s1", s1), ("s2_strict", s2), ("s2_merged", merged)):
        p, r, f = prf(*c)
        assert scores[f"meddocan_{prefix}_p"] == pytest.approx(p)
        assert scores[f"meddocan_{prefix}_r"] == pytest.approx(r)
        assert scores[f"meddocan_{prefix}_f"] == pytest.approx(f)
    assert "meddocan_s1_leak" not in scores  # no sentence counts given


def test_micro_average_over_documents_and_leak():
    gold = {name: (CASES[name][0], CASES[name][1]) for name in CASES}
    system = {name: CASES[name][2] for name in CASES}
    sentences = {name: 2 for name in CASES}  # 7 documents x 2 = 14 sentences
    scores = evaluate(gold, system, sentences)
    # s1 sums: TP 0+0+0+1+1+0+0 = 2; FP 2+1+1+1+1+1+0 = 7; FN 1+2+1+0+1+0+2 = 7
    assert counts(scores, "s1") == (2, 7, 7)
    # P = 2/9, R = 2/9, F = 2/9
    assert scores["meddocan_s1_p"] == pytest.approx(2 / 9)
    assert scores["meddocan_s1_r"] == pytest.approx(2 / 9)
    assert scores["meddocan_s1_f"] == pytest.approx(2 / 9)
    # strict: TP 0+0+1+1+1+0+0 = 3; FP 2+1+0+1+1+1+0 = 6; FN 1+2+0+0+1+0+2 = 6
    assert counts(scores, "s2_strict") == (3, 6, 6)
    # merged: TP 1+1+1+1+1+0+0 = 5; FP 0+0+0+1+1+1+0 = 3; FN 0+0+0+0+1+0+2 = 3
    assert counts(scores, "s2_merged") == (5, 3, 3)
    assert scores["meddocan_s2_merged_p"] == pytest.approx(5 / 8)
    # leak = s1 FN / sentences = 7 / 14
    assert scores["meddocan_s1_leak"] == pytest.approx(0.5)
    assert scores["meddocan_n_sentences"] == 14
    assert scores["meddocan_n_docs"] == 7


def test_per_type():
    text = T_NAME
    gold = [
        at(text, "Juan Pérez García", "NOMBRE_SUJETO_ASISTENCIA"),
        at(text, "Luis", "FAMILIARES_SUJETO_ASISTENCIA"),
    ]
    system = [
        at(text, "Juan Pérez García", "NOMBRE_PERSONAL_SANITARIO"),
        at(text, "Luis", "FAMILIARES_SUJETO_ASISTENCIA"),
    ]
    table = evaluate({"d": (text, gold)}, {"d": system})["meddocan_s1_per_type"]
    # FAMILIARES: TP 1 -> 1/1/1, support 1
    assert table["FAMILIARES_SUJETO_ASISTENCIA"] == {
        "p": 1.0,
        "r": 1.0,
        "f": 1.0,
        "tp": 1,
        "fp": 0,
        "fn": 0,
        "support": 1,
    }
    # NOMBRE_SUJETO: FN 1 -> R = 0/1 = 0, P = 0/0 -> 0.0
    assert table["NOMBRE_SUJETO_ASISTENCIA"] == {
        "p": 0.0,
        "r": 0.0,
        "f": 0.0,
        "tp": 0,
        "fp": 0,
        "fn": 1,
        "support": 1,
    }
    # NOMBRE_PERSONAL: FP 1, no gold -> support 0
    assert table["NOMBRE_PERSONAL_SANITARIO"] == {
        "p": 0.0,
        "r": 0.0,
        "f": 0.0,
        "tp": 0,
        "fp": 1,
        "fn": 0,
        "support": 0,
    }


def test_leak_values():
    assert leak(3, 10) == pytest.approx(0.3)
    assert leak(0, 10) == 0.0
    assert leak(0, 0) == 0.0
    # two documents: FN 1 + 2 = 3 over 4 + 6 = 10 sentences
    t = T_NAME
    gold = {"a": (t, [at(t, "Luis")]), "b": (t, [at(t, "Juan"), at(t, "Pérez")])}
    scores = evaluate(gold, {"a": [], "b": []}, {"a": 4, "b": 6})
    assert scores["meddocan_s1_leak"] == pytest.approx(0.3)


def test_perfect_and_empty():
    t = T_DASH
    gold = {"a": (t, [at(t, "12/03/2019", "FECHAS")]), "b": ("", [])}
    scores = evaluate(gold, {"a": [at(t, "12/03/2019", "FECHAS")], "b": []}, {"a": 1, "b": 0})
    for key in ("s1_p", "s1_r", "s1_f", "s2_strict_f", "s2_merged_f"):
        assert scores[f"meddocan_{key}"] == 1.0
    assert scores["meddocan_s1_leak"] == 0.0
    empty = evaluate({"b": ("", [])}, {"b": []})
    assert counts(empty, "s1") == (0, 0, 0) and empty["meddocan_s1_f"] == 0.0


@pytest.mark.parametrize(
    "gold_ids,system_ids,sentences,message",
    [
        (["a", "b"], ["a"], None, "b"),  # gold document missing from the system
        (["a"], ["a", "c"], None, "c"),  # system document not in the gold
        (["a", "b"], ["a", "b"], {"a": 1}, "b"),  # no sentence count for b
    ],
)
def test_mismatched_documents_raise(gold_ids, system_ids, sentences, message):
    gold = {d: ("SECRET TEXT", []) for d in gold_ids}
    system = {d: [] for d in system_ids}
    with pytest.raises(EvaluationError) as err:
        evaluate(gold, system, sentences)
    assert message in str(err.value)
    assert "SECRET" not in str(err.value)


def test_bad_offsets_raise_without_text():
    with pytest.raises(EvaluationError, match="d: system offsets 5-99") as err:
        evaluate({"d": ("SECRET TEXT", [])}, {"d": [("X", 5, 99)]})
    assert "SECRET" not in str(err.value)


def test_count_sentences(tmp_path):
    (tmp_path / "a.ann").write_text(
        "T1\tFp 4 5\t.\nT2\tFp 9 10\t.\nT3\tFp 20 21\t.\n\n", encoding="utf-8"
    )
    (tmp_path / "b.ann").write_text("", encoding="utf-8")
    assert count_sentences(tmp_path, ["a", "b"]) == {"a": 3, "b": 0}  # blank lines do not count
    with pytest.raises(EvaluationError, match="missing-doc"):
        count_sentences(tmp_path, ["a", "missing-doc"])
