"""Surrogates of the identifiers of the Americas (deid/surrogates/national_ids.py): a value of
the same kind, in the same format, that passes its kind's check, sharing no run of three
digits with the original; the kind read from the value itself, or from the report's country
where two kinds read it alike. Every value is invented; check characters computed here."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import luhn
from stdnum.es import dni
from stdnum.pe import cui

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.operators import make_context
from meddocan_deid.deid.surrogates import national_ids
from meddocan_deid.deid.surrogates.common import shares_digit_run
from meddocan_deid.deid.surrogates.id_fields import BIRTH_DATE_FIELDS
from meddocan_deid.deid.surrogates.identifiers import identifiers
from meddocan_deid.id_checks import CHECKS

KEY = b"national-id-surrogate-key-012345"


def one(value, label, country=None, key=KEY, scope="r1"):
    ctx = make_context(value, [(label, 0, len(value))], key, scope, DeidOptions())
    ctx.country = country
    return identifiers(value, label, ctx)


def shape(value):
    """Digits as 9, letters as A (case kept), the rest as written."""
    return re.sub(r"[a-z]", "a", re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", value)))


NSS = "3198765432" + luhn.calc_check_digit("3198765432")
PE_LETTER = cui.calc_check_digits("10117410")[1]  # the DNI's check written as a letter
assert not dni.is_valid("10117410" + PE_LETTER)

# label, original, its kind's check, the shape the surrogate must keep (None: as the original)
CASES = [
    ("ID_SUJETO_ASISTENCIA", "SAPL790412HJCNRS02", "mx_curp", None),
    ("ID_SUJETO_ASISTENCIA", "GODE 561231 GR8", "mx_rfc", None),
    ("ID_SUJETO_ASISTENCIA", "MAB-930714-8T4", "mx_rfc", None),
    ("ID_ASEGURAMIENTO", NSS, "mx_nss", None),
    ("ID_SUJETO_ASISTENCIA", "12.531.909-2", "cl_run", r"\d\d\.\d{3}\.\d{3}-[\dK]"),
    ("ID_SUJETO_ASISTENCIA", "20-05536168-2", "ar_cuit", None),
    ("ID_SUJETO_ASISTENCIA", "213.123.432-1", "co_nit", None),
    ("ID_SUJETO_ASISTENCIA", "10117410-2", "pe_cui", None),
    ("ID_SUJETO_ASISTENCIA", f"10117410-{PE_LETTER}", "pe_cui", None),
    ("ID_SUJETO_ASISTENCIA", "20512333797", "pe_ruc", None),
    ("ID_SUJETO_ASISTENCIA", "171430710-3", "ec_ci", None),
    ("ID_SUJETO_ASISTENCIA", "1714307103001", "ec_ruc", None),
    ("ID_SUJETO_ASISTENCIA", "001-1391820-5", "do_cedula", None),
    ("ID_SUJETO_ASISTENCIA", "1.234.567-2", "uy_ci", None),
    ("ID_SUJETO_ASISTENCIA", "21-100342-001-7", "uy_rut", None),
    ("ID_SUJETO_ASISTENCIA", "V-11470283-4", "ve_rif", None),
    ("ID_SUJETO_ASISTENCIA", "V-12.345.678", "ve_cedula", None),
    ("ID_SUJETO_ASISTENCIA", "91021027775", "cu_ni", None),
    ("ID_SUJETO_ASISTENCIA", "3-0455-0175", "cr_cedula", None),
    ("ID_SUJETO_ASISTENCIA", "536-90-4399", "us_ssn", None),
    ("ID_ASEGURAMIENTO", "1EG4-TE5-MK73", "us_mbi", None),
]


@pytest.mark.parametrize("label,original,check,fmt", CASES)
@pytest.mark.parametrize("scope", ["r1", "r2", "r3"])
def test_surrogate_is_of_the_kind_valid_and_new(label, original, check, fmt, scope):
    new = one(original, label, scope=scope)
    assert new != original
    assert CHECKS[check](new), (original, new)
    if fmt is None:
        assert shape(new) == shape(original), (original, new)
    else:
        assert re.fullmatch(fmt, new), (original, new)
    # a value that holds a birth date is read as a date is (the year and a month may stay)
    national = national_ids.kind_of(original, label)
    draw = national_ids.draw_kind(national) if national is not None else ""
    rule = draw if draw in BIRTH_DATE_FIELDS else "id"
    assert not shares_digit_run(new, original, rule), (original, new)


@pytest.mark.parametrize("label,original,check,fmt", CASES)
def test_whole_operator_keeps_the_check(label, original, check, fmt):
    """Through the operator (its own digit-run rule over every label) the value still passes."""
    res = apply_operator(original, [(label, 0, len(original))], "surrogate", KEY, scope="s")
    assert CHECKS[check](res.text), (original, res.text)


def test_a_wrong_check_after_its_key_gets_a_valid_value_of_its_kind():
    # a CURP whose check digit fails is still a CURP by its shape
    new = one("SAPL790412HJCNRS07", "ID_SUJETO_ASISTENCIA")
    assert CHECKS["mx_curp"](new)


def test_a_dni_letter_and_a_rut_digit_go_to_the_check_that_passes():
    number = "12345678"
    as_dni = number + dni.calc_check_digit(number)  # a valid DNI, Spain's first
    assert dni.is_valid(one(as_dni, "ID_SUJETO_ASISTENCIA"))
    # the same shape read as a RUT only in a Chilean report when neither check passes
    wrong_both = "12345678-K"
    assert not dni.is_valid(wrong_both.replace("-", "")) and not CHECKS["cl_run"](wrong_both)
    assert CHECKS["cl_run"](one(wrong_both, "ID_SUJETO_ASISTENCIA", country="CL"))


def test_documents_without_a_check_keep_their_country_and_shape():
    # an Argentinian DNI is only read as one in an Argentinian report
    assert national_ids.kind_of("20.123.456", "ID_SUJETO_ASISTENCIA") is None
    assert national_ids.kind_of("20.123.456", "ID_SUJETO_ASISTENCIA", "AR").name == "dni_ar"
    new = one("20.123.456", "ID_SUJETO_ASISTENCIA", country="AR")
    assert re.fullmatch(r"[1-9]\d\.\d{3}\.\d{3}", new)


def test_a_value_of_no_kind_is_none():
    assert national_ids.kind_of("ABC-12", "ID_SUJETO_ASISTENCIA") is None
    # an 11-digit value of another label is no NSS
    assert national_ids.kind_of(NSS, "ID_ASEGURAMIENTO").name == "nss_mx"
    assert national_ids.kind_of(NSS, "ID_CONTACTO_ASISTENCIAL") is None


def test_the_same_value_gets_the_same_surrogate_in_a_report():
    assert one("20-05536168-2", "ID_SUJETO_ASISTENCIA") == one(
        "20-05536168-2", "ID_SUJETO_ASISTENCIA"
    )
    assert one("20-05536168-2", "ID_SUJETO_ASISTENCIA", scope="a") != one(
        "20-05536168-2", "ID_SUJETO_ASISTENCIA", scope="b"
    )


@settings(max_examples=40, deadline=None)
@given(body=st.text(alphabet="0123456789", min_size=10, max_size=10))
def test_any_nss_gets_a_valid_one(body):
    original = body + luhn.calc_check_digit(body)
    new = one(original, "ID_ASEGURAMIENTO")
    assert CHECKS["mx_nss"](new) and len(new) == 11
