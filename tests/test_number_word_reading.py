"""Spanish numbers in words: read with their character offsets (text2num's parser), in any
case and with the spellings dictation uses, and written back so that they read back. Every
text here is invented."""

import random

import pytest

from meddocan_deid.number_words import has_number_word, number_runs, read_digits, spell, spell_group


def test_runs_keep_their_offsets_in_any_case():
    text = "Varón de SETENTA Y NUEVE años; móvil seis uno cero cuarenta y dos, veintidos."
    runs = number_runs(text)
    assert [(text[r.start : r.end], r.digits) for r in runs] == [
        ("SETENTA Y NUEVE", "79"),
        ("seis", "6"),
        ("uno", "1"),
        ("cero cuarenta y dos", "042"),
        ("veintidos", "22"),
    ]


def test_digits_and_line_breaks_end_a_run():
    assert [r.digits for r in number_runs("tres 4 cinco\nseis")] == ["3", "5", "6"]


@pytest.mark.parametrize(
    "n,words",
    [
        (0, "cero"),
        (16, "dieciséis"),
        (21, "veintiuno"),
        (79, "setenta y nueve"),
        (100, "cien"),
        (101, "ciento uno"),
        (1982, "mil novecientos ochenta y dos"),
        (2026, "dos mil veintiséis"),
        (21000, "veintiuno mil"),
        (1000000, "un millón"),
    ],
)
def test_spell(n, words):
    assert spell(n) == words
    assert read_digits(words) == str(n)


def test_every_spelled_value_reads_back():
    rng = random.Random(7)
    for n in list(range(0, 2200)) + [rng.randrange(10**9) for _ in range(500)]:
        assert read_digits(spell(n)) == str(n), n


def test_leading_zeros_are_spelled():
    assert spell_group("042") == "cero cuarenta y dos" and read_digits(spell_group("007")) == "007"


def test_number_words_are_known_folded():
    assert (
        has_number_word("el día VEINTIDÓS")
        and has_number_word("Dieciséis")
        and not has_number_word("sin fiebre")
    )
