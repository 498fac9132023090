"""Surrogates that read like the real thing: phone numbers in ordinary landline and mobile
ranges (never a special-rate prefix), given names and surnames that keep their role, and
kinship words kept by default. Every value here is invented."""
import re

import pytest

from meddocan_deid.deid import DeidOptions, apply_operator, deidentify
from meddocan_deid.deid.gazetteer import fold, load_gazetteer
from meddocan_deid.deid.surrogates import names
from meddocan_deid.deid.surrogates.names import GIVEN, SURNAME, name_field, token_roles

KEY = b"realism-key-0123456789abcdef"
ORDINARY = re.compile(r"^(6\d|7[1-4]|9[1-8]|8[1-8])\d{7}$")
MOBILE = re.compile(r"^(6\d|7[1-4])")


def surrogate(text, label, value, scope, options=None):
    start = text.index(value)
    res = apply_operator(text, [(label, start, start + len(value))], "surrogate", KEY, scope=scope, options=options)
    (r,) = res.replacements
    return res.text[r.new_start:r.new_end]


def national(number: str) -> str:
    digits = re.sub(r"\D", "", re.sub(r"^\s*\(?(?:\+|00)\s?34\)?", "", number))
    return digits


@pytest.mark.parametrize("value", ["915 37 48 21", "600123456", "+34 912 345 678", "(+34) 683 22 11 00",
                                   "803 123 456", "900 100 200", "807-55-44-33", "0034 722 000 111", "983.22.10.10"])
def test_phone_surrogates_in_ordinary_ranges_over_500_scopes(value):
    mobile = bool(MOBILE.match(national(value)))
    for i in range(500):
        new = surrogate(f"Teléfono: {value}.\n", "NUMERO_TELEFONO", value, f"s{i}")
        digits = national(new)
        assert ORDINARY.match(digits), (value, new)
        assert bool(MOBILE.match(digits)) == mobile  # a mobile stays a mobile, a landline a landline
        assert re.sub(r"\d", "9", new) == re.sub(r"\d", "9", value)  # the format is kept
        assert not re.match(r"^(80[0-9]|90[0-9]|70)", digits)


def lists():
    _m, _f, _mf, _ff, first_f, surnames_t, surname_f = names.name_lists(load_gazetteer(None))
    return first_f, {fold(s) for s in surnames_t}


def test_a_surname_that_is_also_a_first_name_stays_a_surname():
    first_f, surnames_only = lists()
    assert fold("Martín") in first_f  # the case that matters: a word in both lists
    for i in range(60):
        text = "Datos del paciente.\nNombre: Begoña.\nApellidos: Martín Urrutia.\n"
        new = surrogate(text, "NOMBRE_SUJETO_ASISTENCIA", "Martín Urrutia", f"s{i}")
        assert all(fold(w) in surnames_only for w in new.split()), new
        given = surrogate("Nombre: Martín.\n", "NOMBRE_SUJETO_ASISTENCIA", "Martín", f"s{i}")
        assert fold(given) in first_f and fold(given) not in surnames_only, given
        full = surrogate("Remitido por: Pedro Martín Urrutia.\n", "NOMBRE_PERSONAL_SANITARIO", "Pedro Martín Urrutia",
                         f"s{i}")
        words = full.split()
        assert fold(words[0]) in first_f and fold(words[0]) not in surnames_only, full
        assert all(fold(w) in surnames_only for w in words[1:]), full


@pytest.mark.parametrize("words,field,after_title,expected", [
    (["Martín"], SURNAME, False, [SURNAME]),
    (["Martín"], GIVEN, False, [GIVEN]),
    (["Ana", "Ruiz"], GIVEN, False, [GIVEN, SURNAME]),  # `Nombre: Ana Ruiz`
    (["Juan", "Martín"], "", False, [GIVEN, SURNAME]),
    (["Martín", "García"], "", False, [GIVEN, SURNAME]),
    (["García", "López"], "", False, [SURNAME, SURNAME]),
    (["Luis", "Albarrán", "Tejero"], "", False, [GIVEN, SURNAME, SURNAME]),
    (["Ana", "José", "Ruiz", "Gil"], "", False, [GIVEN, GIVEN, SURNAME, SURNAME]),
    (["Martín"], "", True, [SURNAME]),  # `Dr. Martín`
])
def test_token_roles(words, field, after_title, expected):
    assert token_roles(words, load_gazetteer(None), field, after_title) == expected


@pytest.mark.parametrize("line,expected", [
    ("Nombre: ", GIVEN), ("Apellidos: ", SURNAME), ("Nombre y apellidos: ", ""), ("Remitido por: ", ""),
    ("APELLIDOS:\t", SURNAME),
])
def test_name_field(line, expected):
    text = "Datos del paciente.\n" + line + "Zq"
    assert name_field(text, text.index("Zq")) == expected


def test_kinship_words_kept_by_default_in_the_api(rule_nlp):
    text = "Informe clínico: niña de 7 años; su madre la acompaña.\n"
    kept = deidentify(text, "surrogate", KEY, nlp=rule_nlp)
    assert "su madre la acompaña" in kept.text
    swapped = deidentify(text, "surrogate", KEY, nlp=rule_nlp, keep_kinship=False)
    assert "su madre" not in swapped.text
    assert DeidOptions().keep_kinship is True


def test_kept_kinship_never_keeps_digits_or_names():
    # a relative's value that is not a kinship word still gets a surrogate
    text = "Acompañante: 000.\n"
    new = surrogate(text, "FAMILIARES_SUJETO_ASISTENCIA", "000", "s1")
    assert new != "000"
    text = "Acompañada de su madre Begoña.\n"
    new = surrogate(text, "FAMILIARES_SUJETO_ASISTENCIA", "madre Begoña", "s1")
    assert new.startswith("madre ") and "Begoña" not in new
