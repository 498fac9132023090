"""Phones of each national plan (pipeline/phones.py and the `phone_cc` and `phone_national`
kinds of the identifiers component): numbers with a country code anywhere, numbers written
the national way when the document's country is known; clinical values (lab results, doses,
codes, dates) never. Every number and text is invented."""

from pathlib import Path

import pytest
from spacy.tokens import Doc

from meddocan_deid.pipeline.patterns import read_identifier_patterns
from meddocan_deid.pipeline.phones import national, phone_like, with_country_code
from meddocan_deid.pipeline.tokenizer import blank_pipeline

PATTERNS = Path(__file__).parents[2] / "configs" / "patterns" / "identifiers.jsonl"


def make_nlp(country=None):
    nlp = blank_pipeline()
    nlp.add_pipe("meddocan_identifiers", config={"country": country}).initialize(
        patterns=read_identifier_patterns(PATTERNS)
    )
    return nlp


@pytest.fixture(scope="module")
def nlp():
    return make_nlp()


def phones(nlp, text):
    doc = nlp(text)
    return [s.text for s in doc.spans["identifiers"] if s.label_ == "NUMERO_TELEFONO"]


@pytest.mark.parametrize(
    "value,valid",
    [
        ("+52 55 1234 5678", True),
        ("+1 (809) 555-0123", True),
        ("(+52) 55 1234 5678", True),
        ("+54 9 11 4567-8901", True),
        ("0054 9 11 4567-8901", True),
        ("+56 9 8765 4321", True),
        ("+598 2 487 1234", True),
        ("+34 612 345 678", False),  # Spain's: the phone_es check
        ("+52 1.234.567", False),  # not a number of the plan
        ("+52 55 1234 567", False),  # a digit short
    ],
)
def test_with_country_code(value, valid):
    assert with_country_code(value) is valid


@pytest.mark.parametrize(
    "value,region,valid",
    [
        ("(011) 4567-8901", "AR", True),
        ("310 555 1234", "CO", True),
        ("9 8765 4321", "CL", True),
        ("(809) 555-0123", "DO", True),
        ("55 1234 5678", "MX", True),
        ("2 487 1234", "UY", True),
        ("0412-1234567", "VE", True),
        ("55 1234 5678", None, False),  # no country: never
        ("+52 55 1234 5678", "MX", False),  # a country code: with_country_code
        # clinical values
        ("24-03-2024", "UY", False),
        ("2024/03/12", "CO", False),
        ("1.234.567", "UY", False),
        ("12.345.678", "UY", False),
        ("1.200.000", "CL", False),
        ("7,35", "CU", False),
        ("120/80", "MX", False),
    ],
)
def test_national(value, region, valid):
    assert national(value, region) is valid


@pytest.mark.parametrize(
    "value,like",
    [
        ("(011) 4567-8901", True),
        ("310 555 1234", True),
        ("310-555 12-34", False),  # separators mixed
        ("31 0 5551234", False),  # a one-digit group after the first
        ("12-03-2024", False),
        ("245.000", False),
    ],
)
def test_phone_like(value, like):
    assert phone_like(value) is like


def test_country_code_numbers_anywhere(nlp):
    text = "Su hermano vive en Monterrey y pide aviso al +52 81 2345 6789 o al +1 (809) 555-0123."
    assert phones(nlp, text) == ["52 81 2345 6789", "1 (809) 555-0123"]


def test_national_numbers_only_with_the_country_or_a_key():
    text = "Avisar a su hija al 11 4567-8901 antes del alta."
    assert phones(make_nlp(), text) == []
    assert phones(make_nlp("AR"), text) == ["11 4567-8901"]
    # a phone key finds it whatever the country
    assert phones(make_nlp(), "Celular: 11 4567-8901.") == ["11 4567-8901"]


CLINICAL = [
    # lab results, doses, codes and dates that a national plan would read as numbers
    "Plaquetas 245000 /mm3, leucocitos 12.350 y glucosa 1104567890 mg/dl.",
    "Se administran 1200000 UI de penicilina benzatina.",
    "Lote 1145678901 de la vacuna antigripal.",
    "Código CIE-10 E11.9; registro sanitario INVIMA 2019M-0012345.",
    "Fecha de la cita: 24-03-2024 y control el 2024/05/12.",
    "Peso 3105551234 g según la báscula.",
    "TA 120/80 mmHg, FC 4567 8901 lpm.",
    "Recuento de 11 4567 8901 células por campo.",
]


@pytest.mark.parametrize("country", ["AR", "CO", "MX", "UY", "CL", "DO", "PE", "US"])
@pytest.mark.parametrize("text", CLINICAL)
def test_clinical_values_are_never_phones(country, text):
    assert phones(make_nlp(country), text) == []


@pytest.fixture
def country_extension():
    """`doc._.country`, as a country detector would set it (removed after the test when
    this test registered it)."""
    registered = not Doc.has_extension("country")
    if registered:
        Doc.set_extension("country", default=None)
    yield
    if registered:
        Doc.remove_extension("country")


def test_doc_country_overrides_the_setting(country_extension):
    nlp = make_nlp()
    text = "Se cita para control; avisar al 310 555 1234 si empeora."
    doc = nlp.make_doc(text)
    doc._.country = "CO"
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [s.text for s in doc.spans["identifiers"]] == ["310 555 1234"]
    # the extension unset: the component's setting (none here)
    assert [s.text for s in nlp(text).spans["identifiers"]] == []


def test_a_bad_country_is_named():
    with pytest.raises(ValueError, match="'Colombia' is not an ISO 3166 alpha-2 code"):
        make_nlp("Colombia")


@pytest.mark.parametrize(
    "body, decimal",
    [
        ("3,5", True),
        ("120,75", True),
        ("1,2,3", False),
        ("3,", False),
        (",5", False),
        ("35", False),
    ],
)
def test_a_decimal_reads_as_before_its_rewrite(body, decimal):
    import re

    from meddocan_deid.pipeline.phones import _DECIMAL

    for pattern in (re.compile(r"\d+,\d+"), _DECIMAL):
        assert (pattern.fullmatch(body) is not None) == decimal
