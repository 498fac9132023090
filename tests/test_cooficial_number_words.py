"""Catalan, Galician and Basque numbers in words: read from their word lists (text2num reads
none of them) in the passages written in that language, and written back so that they read
back. Every text here is invented."""

import random

import pytest

from meddocan_deid.number_words import (
    has_number_word,
    number_runs,
    read_digits,
    spell,
    spell_group,
)


@pytest.mark.parametrize(
    "text,lang,expected",
    [
        ("trenta-dos", "ca", ["32"]),
        ("vint-i-tres de març de mil nou-cents quaranta-tres", "ca", ["23", "1943"]),
        ("dues-centes quinze", "ca", ["215"]),
        ("sis sis nou, vint-i-tres, quaranta-u", "ca", ["6", "6", "9", "23", "41"]),
        ("el primer de gener", "ca", ["1º"]),
        ("trinta e un de decembro de mil novecentos corenta e un", "gl", ["31", "1941"]),
        ("seis oito sete, catro tres dous", "gl", ["6", "8", "7", "4", "3", "2"]),
        ("hogeita hiru urte", "eu", ["23"]),
        ("hirurogeita hamabi eta laurogei", "eu", ["72", "80"]),
        ("bi mila eta hogeita lau", "eu", ["2024"]),
        ("ehun eta bost", "eu", ["105"]),
        ("zazpi bat zortzi", "eu", ["7", "1", "8"]),
    ],
)
def test_numbers_in_words_of_each_language(text, lang, expected):
    assert [r.digits for r in number_runs(text, lang=lang)] == expected


def test_a_joiner_without_a_number_after_it_is_left_out():
    text = "hogeita bost urte eta gero"
    (run,) = number_runs(text, lang="eu")
    assert text[run.start : run.end] == "hogeita bost"


def test_without_a_language_each_passage_is_read_in_its_own():
    text = (
        "Varón de setenta y nueve años.\n"
        "La seva filla té vint-i-tres anys i viu amb el seu fill.\n"
        "Bere alabak hogeita hiru urte ditu eta Bilbon bizi da.\n"
        "A súa nai ten trinta e dous anos e vive en Lugo."
    )
    found = [(text[r.start : r.end], r.digits) for r in number_runs(text)]
    assert found == [
        ("setenta y nueve", "79"),
        ("vint-i-tres", "23"),
        ("hogeita hiru", "23"),
        ("trinta e dous", "32"),
    ]


def test_a_spanish_text_reads_as_before():
    # `u` is Catalan one: in a Spanish passage it stays a word
    text = "Tiene siete u ocho años."
    assert [r.digits for r in number_runs(text)] == ["7", "8"]


@pytest.mark.parametrize(
    "n,lang,words",
    [
        (32, "ca", "trenta-dos"),
        (23, "ca", "vint-i-tres"),
        (1985, "ca", "mil nou-cents vuitanta-cinc"),
        (2024, "ca", "dos mil vint-i-quatre"),
        (32, "gl", "trinta e dous"),
        (1985, "gl", "mil novecentos oitenta e cinco"),
        (100, "gl", "cen"),
        (23, "eu", "hogeita hiru"),
        (92, "eu", "laurogeita hamabi"),
        (2024, "eu", "bi mila eta hogeita lau"),
        (105, "eu", "ehun eta bost"),
    ],
)
def test_spell_in_a_language(n, lang, words):
    assert spell(n, lang) == words
    assert read_digits(words, lang) == str(n)


@pytest.mark.parametrize("lang", ["ca", "gl", "eu"])
def test_every_spelled_value_reads_back(lang):
    rng = random.Random(11)
    for n in list(range(0, 2100)) + [rng.randrange(2100, 10**6) for _ in range(300)]:
        assert read_digits(spell(n, lang), lang) == str(n), (lang, n)


def test_leading_zeros_and_unknown_languages():
    assert spell_group("042", "ca") == "zero quaranta-dos"
    assert read_digits(spell_group("007", "eu"), "eu") == "007"
    with pytest.raises(ValueError):
        spell(3, "fr")


def test_number_words_of_every_language_or_one():
    assert has_number_word("HOGEITA hiru") and has_number_word("trinta")
    assert not has_number_word("hogeita hiru", "es") and has_number_word("trenta", "ca")
