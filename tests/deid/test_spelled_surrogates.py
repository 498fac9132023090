"""Values dictated in words get surrogates in words: each reads back (text2num's alpha2digit)
to a valid value of its kind, in the original's grouping and case. Every value is invented."""

import datetime as dt
import re

import pytest
from stdnum.es import dni
from text_to_num import alpha2digit

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.surrogates.common import shares_digit_run
from meddocan_deid.deid.surrogates.dates import MAX_SHIFT, MIN_SHIFT, read_date
from meddocan_deid.number_words import has_number_word, number_runs

KEY = b"spelled-surrogate-key-0123456789"
SCOPES = ("r1", "r2", "r3", "r4", "r5")


def one(value, label, scope="r1", options=None):
    return apply_operator(
        value, [(label, 0, len(value))], "surrogate", KEY, scope=scope, options=options
    ).text


def as_digits(text):
    return alpha2digit(text, "es", threshold=0)


def digits(text):
    return re.sub(r"\D", "", as_digits(text))


def in_words(text):
    return not any(c.isdigit() for c in text) and has_number_word(text)


def as_date(text):
    read = read_date(re.sub(r"\s+barra\s+", "/", as_digits(text)).replace("1º", "1"))
    return dt.date(read.year, read.month, read.day)


NAMES = re.compile(
    r"\b(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre"
    r"|lunes|martes|miércoles|jueves|viernes|sábado|domingo)\b"
)


def form(date):
    return NAMES.sub("N", re.sub(r"\d+º?", "#", as_digits(date).lower()))


DATES = [
    "tres de marzo de dos mil veintiséis",
    "treinta y uno de diciembre de mil novecientos ochenta y dos",
    "quince de agosto de dos mil diecinueve",
    "TRES DE MARZO DE DOS MIL VEINTISÉIS",
    "Veintidós de Febrero de Dos Mil Veinte",
    "lunes, primero de mayo de dos mil veintitrés",
    "doce del tres de mil novecientos ochenta y cinco",
    "doce barra tres barra dos mil veinte",
]


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("value", DATES)
def test_dates_keep_their_form_in_words_and_shift(value, scope):
    new = one(value, "FECHAS", scope)
    assert in_words(new), new
    shift = abs((as_date(new) - as_date(value)).days)
    assert MIN_SHIFT <= shift <= MAX_SHIFT
    assert form(new) == form(value)  # numbers in words where they were, the same words around them
    assert new.isupper() == value.isupper()


def test_a_weekday_is_the_new_dates():
    new = one("lunes, primero de mayo de dos mil veintitrés", "FECHAS")
    weekday = ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"][
        as_date(new).weekday()
    ]
    assert new.startswith(weekday + ",")


def test_a_month_and_year_in_words():
    new = one("marzo de dos mil veinte", "FECHAS")
    assert in_words(new) and re.fullmatch(r"[a-z]+ de (19|20)\d\d", as_digits(new))


PHONES = [
    ("seis uno cero cuarenta y dos treinta y tres diecinueve", "67"),
    ("seiscientos doce, treinta y cuatro, cincuenta y seis, setenta y ocho", "67"),
    ("novecientos quince treinta y siete cuarenta y ocho veintiuno", "89"),
    ("nueve uno cinco tres siete cuatro ocho dos uno", "89"),
    ("SEIS CERO CERO ONCE VEINTIDÓS TREINTA Y TRES", "67"),
]


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("value,first", PHONES)
def test_phones_get_a_new_number_in_the_same_grouping(value, first, scope):
    for label in ("NUMERO_TELEFONO", "NUMERO_FAX"):
        new = one(value, label, scope)
        assert in_words(new), new
        number = digits(new)
        assert len(number) == 9 and number[0] in first and not number.startswith(("80", "90", "70"))
        assert not shares_digit_run(number, digits(value))
        assert new.count(",") == value.count(",")
        if (
            len(value.split()) == 9 and "y" not in value.lower().split()
        ):  # dictated digit by digit, written back so
            assert len(new.split()) == 9
        assert new.isupper() == value.isupper()


RECORDS = [
    ("ID_SUJETO_ASISTENCIA", "cuatro cinco ocho dos uno nueve"),
    ("ID_SUJETO_ASISTENCIA", "siete siete ocho ocho nueve nueve uno"),
    ("ID_SUJETO_ASISTENCIA", "cuatrocientos cincuenta y ocho mil doscientos diecinueve"),
    ("ID_CONTACTO_ASISTENCIAL", "ocho ocho tres uno dos"),
    ("ID_TITULACION_PERSONAL_SANITARIO", "dos ocho tres uno seis cuatro"),
    (
        "ID_ASEGURAMIENTO",
        "veintiocho cincuenta y dos cuarenta y uno setenta y nueve sesenta y tres quince",
    ),
]


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("label,value", RECORDS)
def test_record_numbers_get_a_new_value_of_the_same_length(label, value, scope):
    new = one(value, label, scope)
    assert in_words(new), new
    assert len(digits(new)) == len(digits(value)) and digits(new) != digits(value)
    assert not shares_digit_run(digits(new), digits(value))


@pytest.mark.parametrize("scope", SCOPES)
def test_a_dni_in_words_keeps_a_valid_letter(scope):
    new = one("cinco uno dos tres cuatro cinco seis siete C", "ID_SUJETO_ASISTENCIA", scope)
    assert in_words(new) and re.fullmatch(r"[a-z ]+ [A-Z]", new), new
    assert dni.is_valid(digits(new) + new[-1])


@pytest.mark.parametrize("scope", SCOPES)
def test_a_postal_code_in_words_is_a_real_provinces(scope):
    new = one("veintiocho cero cero nueve", "TERRITORIO", scope)
    assert in_words(new), new
    code = digits(new)
    assert len(code) == 5 and 1 <= int(code[:2]) <= 52 and code != "28009"


@pytest.mark.parametrize(
    "value", ["cero cero cero cinco", "cero cuarenta y dos cero cero", "siete cero cero cero"]
)
def test_zeros_stay_groups_of_their_own(value):
    new = one(value, "ID_SUJETO_ASISTENCIA")
    assert in_words(new) and len(digits(new)) == len(digits(value)) and len(new.split()) >= 4


def test_ages_in_words_are_kept_as_today():
    assert one("setenta y nueve años", "EDAD_SUJETO_ASISTENCIA") == "setenta y nueve años"
    assert (
        one("noventa y dos años", "EDAD_SUJETO_ASISTENCIA", options=DeidOptions(age_threshold=90))
        != "noventa y dos años"
    )


def test_words_that_are_not_only_numbers_go_to_the_generator():
    # a town whose name holds a number word stays a town
    assert (
        not in_words(one("Tres Cantos", "TERRITORIO"))
        or one("Tres Cantos", "TERRITORIO") != "Tres Cantos"
    )
    assert one("45873912K", "ID_SUJETO_ASISTENCIA")[:8].isdigit()


def test_two_groups_that_would_read_as_one_are_spelled_digit_by_digit():
    from meddocan_deid.deid.surrogates.spelled import _spell_code

    runs = number_runs("novecientos quince")  # two groups, 900 and 15, read back as one (915)
    value = "novecientos quince"
    assert [r.digits for r in runs] == ["915"]
    runs = number_runs("seis cero cero quince")
    spelled = _spell_code("seis cero cero quince", runs, "90015", [" ", " ", " "], "")
    assert digits(spelled) == "90015" and value not in spelled


def test_a_dictated_report_through_the_rule_pipeline(rule_nlp):
    import meddocan_deid

    text = (
        "Informe clínico del paciente:\n"
        "varón de setenta y nueve años; acude el tres de marzo de dos mil "
        "veintiséis; teléfono seis uno cero cuarenta y dos treinta y tres diecinueve.\n"
    )
    doc = rule_nlp(text)
    new, replacements = meddocan_deid.deidentify(doc, mode="surrogate", key=KEY, scope="dictado-1")
    assert "setenta y nueve años" in new  # ages are kept
    assert "tres de marzo" not in new and "seis uno cero" not in new
    assert not any(c.isdigit() for c in new)  # what was in words stays in words
    phone = re.search(r"teléfono (.+)\.\n", new).group(1)
    assert len(digits(phone)) == 9
