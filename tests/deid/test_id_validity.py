"""The kind a surrogate check reads a value as, and whether a surrogate is a valid one of it
(deid/surrogates/id_validity.py, used by scripts/surrogate_check.py). Invented values."""

import pytest
from stdnum.es import dni

from meddocan_deid.deid.surrogates.id_validity import kind_check

DNI = "45873912" + dni.calc_check_digit("45873912")


@pytest.mark.parametrize(
    "value,label,kind,valid,invalid",
    [
        (
            "SAPL790412HJCNRS02",
            "ID_SUJETO_ASISTENCIA",
            "curp",
            "BOXW310820HNERXN09",
            "BOXW310820HNERXN08",
        ),
        ("12.531.909-2", "ID_SUJETO_ASISTENCIA", "run_cl", "7.654.321-6", "7.654.321-5"),
        ("536-90-4399", "ID_SUJETO_ASISTENCIA", "ssn", "123-45-6789", "666-45-6789"),
        (DNI, "ID_SUJETO_ASISTENCIA", "dni", "12345678Z", "12345678A"),
        ("+52 55 1234 5678", "NUMERO_TELEFONO", "phone_MX", "+52 81 2345 6789", "+52 55 1234 567"),
        # no country: the first plan of the Spanish-speaking countries it is valid in
        ("(011) 4567-8901", "NUMERO_TELEFONO", "phone_AR", "(011) 5789-1234", "(011) 4567-890"),
        ("612 34 56 78", "NUMERO_TELEFONO", "phone_ES", "699 12 34 56", "512 34 56 78"),
        ("HC-2291-B", "ID_SUJETO_ASISTENCIA", None, None, None),
    ],
)
def test_kind_check(value, label, kind, valid, invalid):
    check = kind_check(value, label)
    if kind is None:
        assert check is None
        return
    assert check.kind == kind
    assert check.valid(valid) and not check.valid(invalid)


def test_a_phone_of_another_type_is_not_valid_for_it():
    # a Spanish mobile's surrogate must be a mobile
    check = kind_check("612 34 56 78", "NUMERO_TELEFONO")
    assert not check.valid("912 34 56 78")
