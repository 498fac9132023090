"""Surrogates in the language of their passage: kinship words, dates and codes dictated in
words in Catalan, Galician and Basque, and Basque names and places with a case suffix, which
keep it in the form the new word takes. Every value is invented."""

import re

import pytest

from meddocan_deid.basque_suffixes import readings
from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.surrogates.dates import read_date
from meddocan_deid.deid.surrogates.names import KIN_BY_LANG, name_field
from meddocan_deid.lexicon import lookup_key
from meddocan_deid.number_words import number_runs, read_digits

KEY = b"cooficial-surrogate-key-01234567"
NO_KINSHIP = DeidOptions(keep_kinship=False)


def replace(text, mentions, options=NO_KINSHIP, scope="r1"):
    """The new text and each mention's surrogate, in order (mentions: (value, label))."""
    spans = []
    for value, label in mentions:
        start = text.index(value)
        spans.append((label, start, start + len(value)))
    result = apply_operator(
        text, sorted(spans, key=lambda s: s[1]), "surrogate", KEY, scope=scope, options=options
    )
    new = {r.start: result.text[r.new_start : r.new_end] for r in result.replacements}
    return result.text, [new[s] for _l, s, _e in spans]


def kin(lang, word):
    return KIN_BY_LANG[lang].get(lookup_key(word))


@pytest.mark.parametrize(
    "text,word,lang",
    [
        ("La seva filla viu a prop i ve cada dia.", "filla", "ca"),
        ("Els seus fills viuen a prop i venen sovint.", "fills", "ca"),
        ("A súa nai vive con ela e vén cada día.", "nai", "gl"),
        ("La hija vive cerca y viene a diario.", "hija", "es"),
    ],
)
def test_a_kinship_word_becomes_one_of_its_language_gender_and_number(text, word, lang):
    _new_text, (new,) = replace(text, [(word, "FAMILIARES_SUJETO_ASISTENCIA")])
    assert lookup_key(new) != lookup_key(word)
    assert kin(lang, new) is not None, new
    assert kin(lang, new)[:2] == kin(lang, word)[:2]


@pytest.mark.parametrize(
    "word,stem,case",
    [("alabak", "alaba", "ergative"), ("senarrarekin", "senarra", "comitative")],
)
def test_a_basque_kinship_word_keeps_its_case(word, stem, case):
    text = f"Bere {word} ez du ezer esan eta etxean dago gaur."
    _new_text, (new,) = replace(text, [(word, "FAMILIARES_SUJETO_ASISTENCIA")])
    gender = kin("eu", stem)[0]
    assert any(
        c == case and kin("eu", s) is not None and kin("eu", s)[0] == gender
        for s, c in readings(new, ("any", "person"))
    ), new
    assert lookup_key(new) != lookup_key(word)


def test_kinship_words_are_kept_by_default():
    text = "La seva filla viu a prop i ve cada dia."
    assert replace(text, [("filla", "FAMILIARES_SUJETO_ASISTENCIA")], DeidOptions())[1] == ["filla"]


@pytest.mark.parametrize(
    "text,value,lang",
    [
        (
            "Va néixer el vint-i-tres de març de mil nou-cents quaranta-tres a Olot, on viu.",
            "vint-i-tres de març de mil nou-cents quaranta-tres",
            "ca",
        ),
        (
            "Naceu o trinta e un de decembro de mil novecentos corenta e un, e vive soa.",
            "trinta e un de decembro de mil novecentos corenta e un",
            "gl",
        ),
    ],
)
def test_a_date_in_words_is_shifted_in_its_language(text, value, lang):
    _new_text, (new,) = replace(text, [(value, "FECHAS")])
    assert new != value and not any(c.isdigit() for c in new)
    runs = number_runs(new, lang=lang)
    assert [r.start for r in runs] and sum(r.end - r.start for r in runs) > len(new) // 2
    digit_form = new
    for run in reversed(runs):
        digit_form = digit_form[: run.start] + run.digits + digit_form[run.end :]
    reading = read_date(digit_form)
    assert reading is not None and lang in reading.langs  # `abril` is Spanish and Galician


def test_a_phone_in_basque_words_stays_in_basque_words():
    value = "zazpi bost zortzi, hamabi, hogeita hamalau, berrogeita hamasei"
    text = f"Bere alabaren telefonoa: {value}. Gaur deitu du eta bihar etorriko da."
    _new_text, (new,) = replace(text, [(value, "NUMERO_TELEFONO")])
    digits = read_digits(new, "eu")
    assert new != value and len(digits) == 9 and digits[0] in "67"
    assert not any(c.isdigit() for c in new)


@pytest.mark.parametrize(
    "value,label,case",
    [
        ("Gasteizko", "TERRITORIO", "local_genitive"),
        ("Bilbon", "TERRITORIO", "inessive"),
        ("Donostiatik", "TERRITORIO", "ablative"),
    ],
)
def test_a_basque_place_with_a_suffix_keeps_the_suffix(value, label, case):
    text = f"Gaixoa {value} etorri da eta bere alabak ez du ezer esan gaur."
    _new_text, (new,) = replace(text, [(value, label)])
    assert new != value
    assert any(c == case for _s, c in readings(new, ("place", "any"))), new


def test_a_basque_hospital_keeps_its_facility_word_and_a_known_name_its_case():
    text = (
        "Izena: Nekane\n"
        "Nekaneren ahizpa Gurutzetako ospitalean dago eta bere alabak ez du ezer esan."
    )
    _new_text, (name, suffixed, hospital) = replace(
        text,
        [
            ("Nekane", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Nekaneren", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Gurutzetako ospitalean", "HOSPITAL"),
        ],
    )
    assert (
        re.fullmatch(r"\S+(?:ko|go) ospitalean", hospital) and hospital != "Gurutzetako ospitalean"
    )
    assert any(c == "genitive" for _s, c in readings(suffixed, ("any",))), suffixed
    assert "Nekane" not in suffixed and name != "Nekane"


class _Gazetteer:
    def contains(self, kind, value):
        return kind == "towns" and value in ("Irun", "Bilbao")


class _Context:
    def __init__(self, lang):
        self.lang, self.gaz, self.forbidden_exact = lang, _Gazetteer(), frozenset({"nekane"})


@pytest.mark.parametrize(
    "lang,value,seen,out",
    [
        ("eu", "Irungo", "Irun", "Zarauzko"),  # the bare town in, its surrogate suffixed
        ("eu", "Bilbon", "Bilbo", "Zarautzen"),  # `Bilbo`: a Basque name of the word lists
        ("eu", "Nekaneren", "Nekane", "Zarautzen"),  # another PHI value of the report
        ("eu", "Irun", "Irun", "Zarautz"),  # a known name is not read as a suffixed one
        ("eu", "Lasarten", "Lasarten", "Zarautz"),  # an unknown stem: the value as it is
        ("es", "Irungo", "Irungo", "Zarautz"),  # a Spanish line: the value as it is
    ],
)
def test_the_generator_gets_the_bare_name_of_a_basque_suffixed_value(lang, value, seen, out):
    from meddocan_deid.deid.surrogates.basque_case import suffixed

    calls = []

    def generator(text, label, ctx):
        calls.append(text)
        return "Zarautz"

    assert suffixed(generator)(value, "TERRITORIO", _Context(lang)) == out
    assert calls == [seen]


@pytest.mark.parametrize(
    "key,role",
    [
        ("Nom: ", "given"),
        ("Cognoms: ", "surname"),
        ("Izena: ", "given"),
        ("Abizenak: ", "surname"),
        ("Nome e apelidos: ", ""),
        ("Pronombre: ", ""),
    ],
)
def test_name_fields_in_every_language(key, role):
    assert name_field(key + "X", len(key)) == role
