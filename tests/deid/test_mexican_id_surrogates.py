"""A CURP is replaced as a whole and agrees with the surrogate birth date and sex: those the
report states (a FECHAS span after a birth key, moved by the report's date offset; the SEXO
value), otherwise its own date moved by the offset and its own sex; an RFC of the same person
gets the same name letters and date (deid/surrogates/mexican_ids.py, stated_person.py).
Every value and text is invented."""

import datetime as dt

import pytest
from stdnum.mx import curp, rfc

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.surrogates.dates import read_date
from meddocan_deid.deid.surrogates.stated_person import read_sex, stated_person

KEY = b"mexican-id-surrogate-key-0123456"
BODY = "SAPL790412HJCNRS0"
CURP = BODY + curp.calc_check_digit(BODY)
RFC_BODY = "SAPL790412K7"
RFC = RFC_BODY + rfc.calc_check_digit(RFC_BODY)


def deidentify(text, spans, options=None, scope="r1"):
    res = apply_operator(text, spans, "surrogate", KEY, scope=scope, options=options)
    out = {}
    for r in res.replacements:
        out[text[r.start : r.end]] = res.text[r.new_start : r.new_end]
    return out


def spans_of(text, *pairs):
    return [(label, text.index(value), text.index(value) + len(value)) for label, value in pairs]


def as_date(value):
    d = read_date(value)
    return dt.date(d.year, d.month, d.day)


REPORT = (
    "Datos del paciente.\nFecha de nacimiento: 12/04/1979.\nSexo: M.\n"
    f"CURP: {CURP}.\nRFC: {RFC}.\nIngreso: 03/05/2024.\n"
)


def test_curp_agrees_with_the_stated_birth_date_and_sex():
    spans = spans_of(
        REPORT,
        ("FECHAS", "12/04/1979"),
        ("SEXO_SUJETO_ASISTENCIA", "M"),
        ("ID_SUJETO_ASISTENCIA", CURP),
        ("ID_SUJETO_ASISTENCIA", RFC),
        ("FECHAS", "03/05/2024"),
    )
    new = deidentify(REPORT, spans)
    new_curp, new_rfc = new[CURP], new[RFC]
    assert curp.is_valid(new_curp) and new_curp != CURP
    assert curp.get_birth_date(new_curp) == as_date(new["12/04/1979"])
    assert new["M"] == "M"  # the sex is kept by default: `M` is read as neither
    assert curp.get_gender(new_curp) == "M"  # so the CURP's own sex stays
    # the RFC: the same person, the same letters and birth date, a valid check digit
    assert rfc.is_valid(new_rfc, validate_check_digits=True)
    assert new_rfc[:10] == new_curp[:10]


def test_the_stated_sex_wins_over_the_curps_own():
    text = f"Fecha de nacimiento: 12/04/1979. Sexo: femenino. CURP: {CURP}."
    spans = spans_of(
        text,
        ("FECHAS", "12/04/1979"),
        ("SEXO_SUJETO_ASISTENCIA", "femenino"),
        ("ID_SUJETO_ASISTENCIA", CURP),
    )
    assert curp.get_gender(deidentify(text, spans)[CURP]) == "F"


def test_without_a_stated_date_the_curps_own_moves_with_the_reports_dates():
    text = f"CURP: {CURP}. Ingreso: 03/05/2024."
    spans = spans_of(text, ("ID_SUJETO_ASISTENCIA", CURP), ("FECHAS", "03/05/2024"))
    new = deidentify(text, spans)
    offset = as_date(new["03/05/2024"]) - dt.date(2024, 5, 3)
    assert curp.get_birth_date(new[CURP]) == dt.date(1979, 4, 12) + offset


def test_without_the_sex_kept_the_curps_sex_is_drawn_once_per_report():
    text = f"CURP: {CURP}. RFC: {RFC}. Sexo: mujer."
    spans = spans_of(
        text,
        ("ID_SUJETO_ASISTENCIA", CURP),
        ("ID_SUJETO_ASISTENCIA", RFC),
        ("SEXO_SUJETO_ASISTENCIA", "mujer"),
    )
    sexes = {
        curp.get_gender(deidentify(text, spans, DeidOptions(keep_sex=False), f"r{i}")[CURP])
        for i in range(12)
    }
    assert sexes == {"F", "M"}  # not the stated one every time: drawn per report


def test_a_relatives_curp_keeps_its_own_date():
    # the stated birth date is the patient's: another label's CURP moves its own date
    text = f"Fecha de nacimiento: 01/02/1990. CURP de la madre: {CURP}."
    spans = spans_of(text, ("FECHAS", "01/02/1990"), ("OTRO_NUMERO_IDENTIF", CURP))
    new = deidentify(text, spans)
    offset = as_date(new["01/02/1990"]) - dt.date(1990, 2, 1)
    assert curp.get_birth_date(new[CURP]) == dt.date(1979, 4, 12) + offset


@pytest.mark.parametrize("scope", [f"s{i}" for i in range(10)])
def test_curp_is_never_partly_masked(scope):
    new = deidentify(f"CURP: {CURP}", [("ID_SUJETO_ASISTENCIA", 6, 24)], scope=scope)[CURP]
    assert curp.is_valid(new)
    assert new[:4] != CURP[:4] and new[11:16] != CURP[11:16]  # letters, state and consonants new


@pytest.mark.parametrize(
    "value,sex",
    [("F", "F"), ("femenino", "F"), ("Mujer", "F"), ("varón", "M"), ("H", "M"), ("M", None)],
)
def test_read_sex(value, sex):
    assert read_sex(value) == sex


def test_stated_person_reads_the_birth_key():
    text = "Ingreso: 03/05/2024. F. nac.: 12/04/1979. Sexo: varón."
    spans = spans_of(
        text,
        ("FECHAS", "03/05/2024"),
        ("FECHAS", "12/04/1979"),
        ("SEXO_SUJETO_ASISTENCIA", "varón"),
    )
    assert stated_person(text, spans) == (dt.date(1979, 4, 12), "M")
