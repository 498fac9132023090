"""The Spanish words the evidence reads (kept sex values, column names of quasi-identifiers) are
word lists (pipeline/data/es/), not literals. Invented values."""

import pytest

from meddocan_deid.evidence import generalise, text_table
from meddocan_deid.lexicon import tagged_words


def test_the_kept_sex_values_come_from_the_word_list():
    male = set(tagged_words("sex_words", "kept_male", "es"))
    female = set(tagged_words("sex_words", "kept_female", "es"))
    assert text_table.SEX == {**{w: "H" for w in male}, **{w: "M" for w in female}}
    assert not male & female and {"v", "varón"} <= male and "m" in female
    # the surrogates' sex words are another use of the same file: `m` is not female there
    assert "m" not in tagged_words("sex_words", "female", "es")


@pytest.mark.parametrize(
    "value,cell",
    [("Varón", "H"), ("V.", "H"), ("mujer", "M"), ("F", "M"), ("desconocido", None)],
)
def test_a_kept_sex_value_becomes_h_or_m(value, cell):
    cells = text_table._cells("SEXO_SUJETO_ASISTENCIA", value)
    assert cells == ({"sex": cell} if cell else {})


@pytest.mark.parametrize(
    "column,kind",
    [
        ("Edad", "age"),
        ("fecha_alta", "date"),
        ("codigo_postal", "postal_code"),
        ("municipio_residencia", "town"),
        ("city", "town"),
        ("servicio", "category"),
    ],
)
def test_a_column_name_says_its_kind(column, kind):
    assert generalise.guess_kind(column) == kind


def test_the_spanish_column_names_come_from_the_word_list():
    for kind, names in generalise.KIND_BY_NAME.items():
        spanish = tagged_words("quasi_identifier_columns", kind, "es")
        assert spanish and names == generalise.ENGLISH_NAMES[kind] + tuple(spanish)
