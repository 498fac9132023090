"""The data of the countries of the Americas (meddocan_deid.country_data): what each country
has, and a clear error for a bad file."""

import pytest

from meddocan_deid import country_data
from meddocan_deid.country_data import (
    DataFileError,
    centre_heads,
    check_country,
    countries,
    divisions,
    frequent_surnames,
    institutions,
    places,
)

AMERICAS = [c for c in countries() if c != "ES"]


@pytest.mark.parametrize("country", AMERICAS)
def test_each_country_has_places_divisions_and_institutions(country):
    assert len(places(country)) >= 40
    assert len(places(country, 15000)) < len(places(country)) or country == "US"  # 15,000+ only
    assert places(country)[0] == places(country, 15000)[0]  # the most populous first
    assert len(divisions(country)) >= 7
    assert any(i.country == country for i in institutions())


def test_the_brief_countries_and_us_states_are_there():
    assert {"MX", "AR", "CL", "CO", "PE", "VE", "UY", "CU", "DO", "US"} <= set(countries())
    assert {"California", "Texas", "Florida", "New York"} <= set(divisions("US"))
    assert "Michoacán" in divisions("MX") and "Michoacán de Ocampo" in divisions("MX")
    assert "Ciudad de México" in places("MX") and "La Habana" in places("CU")


def test_centre_heads_and_surnames():
    heads = {h.pattern.pattern for h in centre_heads() if h.anywhere}
    assert any("umf" in p for p in heads) and any("cesfam" in p for p in heads)
    assert frequent_surnames()[:3] == ("garcia", "rodriguez", "hernandez")
    assert len(frequent_surnames()) == 5000
    assert check_country(" us ") == "US"


def test_a_bad_file_names_the_file_and_the_line(tmp_path, monkeypatch):
    (tmp_path / "countries.tsv").write_text("# comment\nMX\tMéxico\n", encoding="utf-8")
    monkeypatch.setattr(country_data, "DATA", tmp_path)
    country_data.countries.cache_clear()
    try:
        with pytest.raises(DataFileError, match=r"countries.tsv:2: expected 6 to 6"):
            country_data.countries()
    finally:
        monkeypatch.undo()
        country_data.countries.cache_clear()
    assert "MX" in country_data.countries()


def test_a_missing_file_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr(country_data, "DATA", tmp_path)
    country_data.institutions.cache_clear()
    try:
        with pytest.raises(DataFileError, match=r"institutions.tsv: data file not found"):
            country_data.institutions()
    finally:
        monkeypatch.undo()
        country_data.institutions.cache_clear()


def test_detection_places_leave_out_names_and_words():
    found = country_data.detection_places()
    assert found["tlalnepantla"] == {"MX"} and found["penalolen"] == {"CL"}
    assert "guadalupe" not in found and "victoria" not in found  # names, words
    assert "jalisco" in found and "rivera" not in found  # a division that is a listed surname


def test_country_cues_are_read_with_their_checks():
    cues = country_data.country_cues()
    assert len(cues) >= 70
    assert {c.country for c in cues} >= {"MX", "GT", "SV", "HN", "NI", "PA", "ES"}
    checked = {c.check for c in cues if c.check}
    assert {"sv_dui", "gt_cui", "ni_cedula", country_data.PHONE_CHECK} <= checked
    # a check looks at the cue's `value` group where the expression names one
    dui = next(c for c in cues if c.check == "sv_dui")
    assert "value" in dui.pattern.groupindex


@pytest.mark.parametrize(
    "row,problem",
    [
        ("XX\t2\t-\t\\bABC\\b", "unknown country 'XX'"),
        ("MX\t0\t-\t\\bABC\\b", "weight '0' is not a positive number"),
        ("MX\tmuch\t-\t\\bABC\\b", "weight 'much' is not a positive number"),
        ("MX\t2\tluhn_mod_7\t\\bABC\\b", "unknown check 'luhn_mod_7'"),
        ("MX\t2\t-\t(ABC", "bad expression"),
        ("MX\t2", "expected 4 to 5 tab-separated fields"),
    ],
)
def test_a_bad_cue_names_the_file_the_line_and_the_problem(tmp_path, monkeypatch, row, problem):
    countries()  # read from the shipped file before DATA moves
    (tmp_path / "country_cues.tsv").write_text(
        f"# comment\nMX\t4\t-\t\\bCURP\\b\tthe key\n{row}\n", encoding="utf-8"
    )
    monkeypatch.setattr(country_data, "DATA", tmp_path)
    country_data.country_cues.cache_clear()
    try:
        with pytest.raises(DataFileError, match=r"country_cues.tsv:3: ") as err:
            country_data.country_cues()
        assert problem in str(err.value)
    finally:
        monkeypatch.undo()
        country_data.country_cues.cache_clear()
    assert country_data.country_cues()[0].country == "MX"


def bad_row_error(tmp_path, monkeypatch, reader, good: str, row: str) -> str:
    """The DataFileError `reader` raises on its file (named as the reader's table: its data
    file in a folder of its own) holding a comment, a good row and `row`; the shipped file is
    read again after."""
    name = {"corregimientos": "corregimientos.tsv", "reference_hospitals": "hospitals.tsv"}[
        reader.__name__
    ]
    countries()  # read from the shipped file before DATA moves
    (tmp_path / name).write_text(f"# comment\n{good}\n{row}\n", encoding="utf-8")
    monkeypatch.setattr(country_data, "DATA", tmp_path)
    reader.cache_clear()
    try:
        with pytest.raises(DataFileError) as err:
            reader()
        return str(err.value)
    finally:
        monkeypatch.undo()
        reader.cache_clear()


def test_the_corregimientos_of_panama_have_a_district_and_a_province():
    found = country_data.corregimientos()
    assert len(found) >= 120 and {c.country for c in found} == {"PA"}
    districts = {c.district for c in found}
    assert {"Panamá", "San Miguelito", "Colón", "David", "Arraiján", "La Chorrera"} <= districts
    bella_vista = next(c for c in found if c.name == "Bella Vista")
    assert (bella_vista.district, bella_vista.province) == ("Panamá", "Panamá")
    assert "betania" in country_data.corregimiento_countries()
    assert country_data.corregimiento_names("MX") == ()
    # corregimientos are no cities of places.tsv: country detection does not count them
    assert "betania" not in country_data.detection_places()


def test_reference_hospitals_are_read_with_their_other_names():
    hospitals = country_data.reference_hospitals()
    assert hospitals["hnerm"] == hospitals["rebagliati"] == ("PE", "edgardo rebagliati martins")
    assert hospitals["hecam"][0] == "EC" and hospitals["hermanos ameijeiras"][0] == "CU"
    assert "almenara" not in hospitals  # a Spanish town


@pytest.mark.parametrize(
    "row,problem",
    [
        ("XX\tBetania\tPanamá\tPanamá", "unknown country 'XX'"),
        ("PA\tBetania\tPanamá\tJalisco", "'Jalisco' is no province of PA"),
        ("PA\tBella Vista\tPanamá\tPanamá", "'Bella Vista' listed twice in Panamá"),
        ("PA\tBetania\tPanamá", "expected 4 to 4 tab-separated fields"),
    ],
)
def test_a_bad_corregimiento_names_the_file_the_line_and_the_problem(
    tmp_path, monkeypatch, row, problem
):
    good = "PA\tBella Vista\tPanamá\tPanamá"
    error = bad_row_error(tmp_path, monkeypatch, country_data.corregimientos, good, row)
    assert "corregimientos.tsv:3: " in error and problem in error
    assert len(country_data.corregimientos()) >= 120


@pytest.mark.parametrize(
    "row,problem",
    [
        ("XX\tHospital Sur", "not a country of the Americas 'XX'"),
        ("ES\tHospital Sur", "not a country of the Americas 'ES'"),
        ("EC\tOtro Hospital\tHNERM", "'HNERM': empty or another hospital's"),
        ("EC", "expected 2 to 3 tab-separated fields"),
    ],
)
def test_a_bad_hospital_row_names_the_file_the_line_and_the_problem(
    tmp_path, monkeypatch, row, problem
):
    good = "PE\tEdgardo Rebagliati Martins\tRebagliati|HNERM"
    error = bad_row_error(tmp_path, monkeypatch, country_data.reference_hospitals, good, row)
    assert "hospitals.tsv:3: " in error and problem in error
    assert country_data.reference_hospitals()["hnerm"][0] == "PE"
