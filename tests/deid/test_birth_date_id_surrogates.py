"""Identifiers of the Americas that hold their holder's birth date agree with the surrogate
birth date the report states, as a CURP does: a Nicaraguan cédula and a Salvadoran NIT
(DDMMYY), a Honduran identity card (the year), a Cuban carné (YYMMDD, its century digit, and
its sex digit's parity with the stated sex). The patient's identifier follows the stated date
moved by the report's offset; another person's, or one in a report that states none, holds a
drawn date (surrogates/central_american_ids.py, national_ids.py, stated_person.py,
id_fields.py). Every value and text is invented; check characters computed here."""

import datetime as dt
import re

import pytest
from stdnum.cu import ni as cu_ni
from stdnum.sv import nit as sv_nit

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.surrogates import national_ids
from meddocan_deid.deid.surrogates.common import shares_digit_run
from meddocan_deid.deid.surrogates.dates import read_date
from meddocan_deid.deid.surrogates.id_fields import BIRTH_DATE_FIELDS
from meddocan_deid.id_checks import CHECKS
from meddocan_deid.id_checks.weighted_keys import ni_check_letter

KEY = b"birth-date-id-surrogate-key-0123"
BIRTH = "15/07/1986"
NI_CEDULA = "001-150786-0012" + ni_check_letter("0011507860012")
SV_NIT = "0614-150786-102-" + sv_nit.calc_check_digit("0614150786102")
HN_CARD = "0801-1986-01234"
CU_CARNE = "86071545678"  # 7th digit 4: born in the 1900s; 10th digit 6: male


def _compact(value):
    return re.sub(r"[^0-9A-Z]", "", value.upper())


def _ddmmyy(start):
    def held(value):
        return _compact(value)[start : start + 6]

    return held


def _hn_year(value):
    return _compact(value)[4:8]


def _cu_date(value):
    return cu_ni.get_birth_date(_compact(value)).isoformat()


def _as_ddmmyy(date):
    return date.strftime("%d%m%y")


def _as_year(date):
    return str(date.year)


def _as_iso(date):
    return date.isoformat()


# country, original, its check, what of the birth date the value holds, the same of a date
IDS = [
    ("NI", NI_CEDULA, "ni_cedula", _ddmmyy(3), _as_ddmmyy),
    ("SV", SV_NIT, "sv_nit", _ddmmyy(4), _as_ddmmyy),
    ("HN", HN_CARD, "hn_identity", _hn_year, _as_year),
    ("CU", CU_CARNE, "cu_ni", _cu_date, _as_iso),
]
SCOPES = [f"r{i}" for i in range(6)]


def deidentify(text, spans, country, scope, options=None):
    options = options or DeidOptions(country=country)
    res = apply_operator(text, spans, "surrogate", KEY, scope=scope, options=options)
    return {text[r.start : r.end]: res.text[r.new_start : r.new_end] for r in res.replacements}


def spans_of(text, *pairs):
    return [(label, text.index(value), text.index(value) + len(value)) for label, value in pairs]


def as_date(value):
    d = read_date(value)
    return dt.date(d.year, d.month, d.day)


@pytest.mark.parametrize("country,original,check,held,of", IDS)
@pytest.mark.parametrize("scope", SCOPES)
def test_the_patients_identifier_holds_the_stated_birth_date(
    country, original, check, held, of, scope
):
    text = f"Fecha de nacimiento: {BIRTH}.\nDocumento: {original}.\nIngreso: 03/05/2024.\n"
    spans = spans_of(
        text, ("FECHAS", BIRTH), ("ID_SUJETO_ASISTENCIA", original), ("FECHAS", "03/05/2024")
    )
    new = deidentify(text, spans, country, scope)
    surrogate, birth = new[original], as_date(new[BIRTH])
    assert birth != as_date(BIRTH)  # the report's dates moved
    assert CHECKS[check](surrogate) and surrogate != original
    assert held(surrogate) == of(birth), (surrogate, birth)


@pytest.mark.parametrize("country,original,check,held,of", IDS)
@pytest.mark.parametrize("scope", SCOPES)
def test_without_a_stated_date_the_birth_date_is_drawn(country, original, check, held, of, scope):
    text = f"Documento: {original}.\nIngreso: 03/05/2024.\n"
    spans = spans_of(text, ("ID_SUJETO_ASISTENCIA", original), ("FECHAS", "03/05/2024"))
    new = deidentify(text, spans, country, scope)
    surrogate = new[original]
    offset = as_date(new["03/05/2024"]) - dt.date(2024, 5, 3)
    assert CHECKS[check](surrogate) and surrogate != original
    # not the original's date moved by the offset, as a CURP's would be: a drawn one
    assert held(surrogate) != of(dt.date(1986, 7, 15) + offset)


@pytest.mark.parametrize("country,original,check,held,of", IDS)
@pytest.mark.parametrize("scope", SCOPES)
def test_another_persons_identifier_keeps_a_date_of_its_own(
    country, original, check, held, of, scope
):
    # the stated birth date is the patient's: a relative's identifier does not take it
    text = f"Fecha de nacimiento: 02/11/1990.\nDocumento de la madre: {original}.\n"
    spans = spans_of(text, ("FECHAS", "02/11/1990"), ("OTRO_NUMERO_IDENTIF", original))
    new = deidentify(text, spans, country, scope)
    surrogate = new[original]
    assert CHECKS[check](surrogate) and surrogate != original
    assert held(surrogate) != of(as_date(new["02/11/1990"]))


@pytest.mark.parametrize("scope", SCOPES)
def test_a_cuban_carne_takes_the_stated_sex_and_century(scope):
    text = f"Fecha de nacimiento: 03/02/2004. Sexo: femenino. Carné de identidad: {CU_CARNE}."
    spans = spans_of(
        text,
        ("FECHAS", "03/02/2004"),
        ("SEXO_SUJETO_ASISTENCIA", "femenino"),
        ("ID_SUJETO_ASISTENCIA", CU_CARNE),
    )
    new = deidentify(text, spans, "CU", scope)
    surrogate = new[CU_CARNE]
    assert cu_ni.is_valid(surrogate)
    assert cu_ni.get_gender(surrogate) == "F"  # the original's digit says male
    # the original's century digit (the 1900s) gives way to one of the 2000s
    assert cu_ni.get_birth_date(surrogate) == as_date(new["03/02/2004"])


def test_without_the_sex_kept_a_cuban_carnes_sex_is_drawn_once_per_report():
    text = f"Sexo: mujer. Carné de identidad: {CU_CARNE}."
    spans = spans_of(text, ("SEXO_SUJETO_ASISTENCIA", "mujer"), ("ID_SUJETO_ASISTENCIA", CU_CARNE))
    options = DeidOptions(country="CU", keep_sex=False)
    sexes = {
        cu_ni.get_gender(deidentify(text, spans, "CU", f"s{i}", options)[CU_CARNE])
        for i in range(12)
    }
    assert sexes == {"F", "M"}


def test_the_birth_date_kinds_are_the_national_kinds_draw_kinds():
    names = ("cedula_ni", "nit_sv", "ni_cu")
    assert {national_ids.draw_kind(national_ids.BY_NAME[n]) for n in names} == set(
        BIRTH_DATE_FIELDS
    )


@pytest.mark.parametrize(
    "surrogate,original,kind,shares",
    [
        # the same month and year, as a birth date moved by a few days leaves them
        ("045-200786-3111E", NI_CEDULA, "id-cedula_ni", False),
        ("045-200786-3111E", NI_CEDULA, "", True),
        ("045-200786-0012E", NI_CEDULA, "id-cedula_ni", True),  # the serial kept
        ("0312-200786-558-7", SV_NIT, "id-nit_sv", False),
        ("0614-200786-558-7", SV_NIT, "id-nit_sv", True),  # the municipality kept
        ("86072041833", CU_CARNE, "id-ni_cu", False),
        ("86072045633", CU_CARNE, "id-ni_cu", True),  # `456` of the serial kept
    ],
)
def test_a_birth_date_is_read_as_a_dates_digits(surrogate, original, kind, shares):
    assert shares_digit_run(surrogate, original, kind) is shares
