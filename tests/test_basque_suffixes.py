"""Basque case suffixes read off a word and put on a new stem, from the suffix list
(pipeline/data/eu/case_suffixes.txt). Invented words and names."""

import pytest

from meddocan_deid import basque_suffixes
from meddocan_deid.basque_suffixes import case_of, inflect, readings


@pytest.mark.parametrize(
    "word,stem,case",
    [
        ("Gasteizko", "Gasteiz", "local_genitive"),
        ("Bilbon", "Bilbo", "inessive"),
        ("Irungo", "Irun", "local_genitive"),
        ("Zarauzko", "Zarautz", "local_genitive"),
        ("Getxotik", "Getxo", "ablative"),
        ("Mikelen", "Mikel", "genitive"),
        ("Aitorrek", "Aitor", "ergative"),
        ("Ainhoari", "Ainhoa", "dative"),
        ("Osakidetzako", "Osakidetza", "local_genitive"),
        ("BILBORA", "BILBO", "adlative"),
    ],
)
def test_a_suffixed_word_reads_as_its_stem_and_case(word, stem, case):
    assert (stem, case) in readings(word)
    assert case_of(stem, word) == case


@pytest.mark.parametrize(
    "stem,case,word",
    [
        ("Bilbo", "local_genitive", "Bilboko"),
        ("Gasteiz", "local_genitive", "Gasteizko"),
        ("Irun", "local_genitive", "Irungo"),  # -go after n and l
        ("Zarautz", "local_genitive", "Zarauzko"),  # tz -> z before k
        ("Bilbo", "inessive", "Bilbon"),
        ("Gasteiz", "inessive", "Gasteizen"),  # -en after a consonant
        ("Aitor", "genitive", "Aitorren"),  # r doubles before a vowel
        ("Koldo", "genitive", "Koldoren"),
        ("Irun", "ablative", "Irundik"),
        ("BILBO", "inessive", "BILBON"),
    ],
)
def test_a_stem_is_written_in_a_case(stem, case, word):
    assert inflect(stem, case) == word


def test_a_bare_word_is_no_suffixed_stem_of_itself():
    assert case_of("Gasteiz", "Gasteiz") is None
    assert case_of("Bilbo", "Bilbao") is None
    # too short a stem is no reading
    assert all(len(stem) >= 3 for stem, _case in readings("Ean"))


def test_an_unknown_case_and_a_bad_suffix_line_name_the_file(monkeypatch):
    with pytest.raises(KeyError, match="case_suffixes.txt"):
        inflect("Bilbo", "no_such_case")
    basque_suffixes.suffixes.cache_clear()
    basque_suffixes._by_case.cache_clear()
    monkeypatch.setattr(basque_suffixes, "words", lambda name, lang: ["inessive place n"])
    try:
        with pytest.raises(ValueError, match="case_suffixes.txt: bad line"):
            basque_suffixes.suffixes()
    finally:
        monkeypatch.undo()
        basque_suffixes.suffixes.cache_clear()
        basque_suffixes._by_case.cache_clear()
