"""Surrogates of Guatemala, El Salvador, Honduras, Nicaragua and Panamá: phones valid in the
country's plan and of the same line type, identifiers that pass their country's check,
addresses in the country's form (`6a. avenida 12-34 zona 10`, `de donde fue el cine 2 c. al
sur`), places and institutions of the country (surrogates/central_american_ids.py,
street_numbering.py, landmark_directions.py). Every value is invented; check characters
computed here."""

import random
import re
from pathlib import Path

import pytest
from stdnum.gt import nit as gt_nit
from stdnum.sv import nit as sv_nit

from meddocan_deid.brat import read_brat_dir
from meddocan_deid.country import country_of
from meddocan_deid.country_data import divisions, institutions, places
from meddocan_deid.deid.operators import apply_operator
from meddocan_deid.deid.options import DeidOptions
from meddocan_deid.deid.surrogates import landmark_directions, national_ids, street_numbering
from meddocan_deid.deid.surrogates.common import shares_digit_run
from meddocan_deid.deid.surrogates.id_validity import kind_check
from meddocan_deid.deid.surrogates.phone_plans import number_type_of, same_type
from meddocan_deid.id_checks import CHECKS
from meddocan_deid.id_checks.weighted_keys import ni_check_letter

KEY = b"central-american-surrogate-key-01"
SET_DIR = Path(__file__).resolve().parents[1] / "data" / "central_america"


def _gt_cui(body: str, department: str, municipality: str) -> str:
    check = sum(int(d) * w for d, w in zip(body, range(2, 10))) % 11
    assert check != 10
    return f"{body[:4]} {body[4:]}{check} {department}{municipality}"


def _dui(body: str) -> str:
    return f"{body}-{-sum(int(d) * w for d, w in zip(body, range(9, 1, -1))) % 10}"


GT_CUI = _gt_cui("26473910", "01", "08")
GT_NIT = "5769371-" + gt_nit.calc_check_digit("5769371")
SV_DUI = _dui("04817362")
SV_NIT = "0614-150387-102-" + sv_nit.calc_check_digit("0614150387102")
NI_CEDULA = "001-150786-0012" + ni_check_letter("0011507860012")


def shape(value):
    """Digits as 9, letters as A, the rest as written."""
    return re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", value))


def one(value, label, country, scope="r1"):
    """The surrogate of `value` alone, as a report of `country` gets it."""
    res = apply_operator(
        value, [(label, 0, len(value))], "surrogate", KEY, scope, DeidOptions(country=country)
    )
    return res.text


# country, label, original, the check its surrogate passes
IDS = [
    ("GT", GT_CUI, "gt_cui"),
    ("GT", GT_NIT, "gt_nit"),
    ("SV", SV_DUI, "sv_dui"),
    ("SV", SV_NIT, "sv_nit"),
    ("HN", "0801-1985-01234", "hn_identity"),
    ("NI", NI_CEDULA, "ni_cedula"),
    ("PA", "8-123-4567", "pa_cedula"),
    ("PA", "10-45-789", "pa_cedula"),
    ("PA", "PE-12-345", "pa_cedula"),
    ("PA", "8AV-12-345", "pa_cedula"),
]


@pytest.mark.parametrize("country,original,check", IDS)
@pytest.mark.parametrize("scope", ["r1", "r2", "r3"])
def test_an_identifier_gets_a_valid_one_of_its_country(country, original, check, scope):
    assert CHECKS[check](original)
    new = one(original, "ID_SUJETO_ASISTENCIA", country, scope)
    assert new != original and CHECKS[check](new), (original, new)
    assert shape(new) == shape(original), (original, new)  # the format kept
    # no run of three digits of the original, but in the places its scheme keeps
    kind = national_ids.kind_of(original, "ID_SUJETO_ASISTENCIA", country)
    assert not shares_digit_run(new, original, national_ids.draw_kind(kind)), (original, new)


def test_the_parts_a_scheme_fixes():
    # a Panamanian cédula keeps its province and letters; a Honduran card a year near its own
    assert one("10-45-789", "ID_SUJETO_ASISTENCIA", "PA").startswith("10-")
    assert one("PE-12-345", "ID_SUJETO_ASISTENCIA", "PA").startswith("PE-")
    year = int(one("0801-1985-01234", "ID_SUJETO_ASISTENCIA", "HN")[5:9])
    assert abs(year - 1985) <= 10


def test_a_weak_check_is_read_only_in_its_country():
    # one value in ten passes a DUI's check: outside El Salvador it is no DUI
    assert national_ids.kind_of(SV_DUI, "ID_SUJETO_ASISTENCIA", "SV").name == "dui_sv"
    other = national_ids.kind_of(SV_DUI, "ID_SUJETO_ASISTENCIA", "MX")
    assert other is None or other.name != "dui_sv"
    assert national_ids.kind_of(GT_NIT, "ID_SUJETO_ASISTENCIA", "GT").name == "nit_gt"
    # a Panamanian cédula written its way is Panamá's in a Panamanian report, not Costa Rica's
    assert national_ids.kind_of("8-123-4567", "ID_SUJETO_ASISTENCIA", "PA").name == "cedula_pa"
    # without its groups a number is no cédula of Panamá (a record number)
    ungrouped = national_ids.kind_of("6792548", "ID_SUJETO_ASISTENCIA", "PA")
    assert ungrouped is None or ungrouped.name != "cedula_pa"
    # a Nicaraguan cédula tells its kind by its shape
    assert national_ids.kind_of(NI_CEDULA, "ID_SUJETO_ASISTENCIA").name == "cedula_ni"


PHONES = [
    ("GT", "5123 4567"),
    ("GT", "2334-5678"),
    ("GT", "502 2334-5678"),
    ("SV", "7012 3456"),
    ("SV", "2281-4567"),
    ("HN", "9876-5432"),
    ("HN", "2238-1234"),
    ("NI", "8812 3456"),
    ("NI", "2266 1234"),
    ("PA", "6123-4567"),
    ("PA", "225-1234"),
    ("PA", "507 6987-1234"),
]


@pytest.mark.parametrize("country,original", PHONES)
@pytest.mark.parametrize("scope", ["r1", "r2"])
def test_a_phone_stays_in_its_plan_and_type(country, original, scope):
    kind = number_type_of(original, country)
    assert kind is not None
    new = one(original, "NUMERO_TELEFONO", country, scope)
    assert new != original and same_type(number_type_of(new, country), kind), (original, new)
    assert re.sub(r"\d", "9", new) == re.sub(r"\d", "9", original)
    assert not shares_digit_run(new, original, "phone"), (original, new)


@pytest.mark.parametrize(
    "country,original,pattern",
    [
        ("GT", "6a. avenida 12-34 zona 10", r"(\d{1,2})a\. avenida \d\d-\d\d zona (\d{1,2})"),
        ("GT", "15 calle 3-20", r"(\d{1,2}) calle \d-\d\d"),
        ("HN", "3a calle, 5a avenida", r"(\d{1,2})a calle, (\d{1,2})a avenida"),
        ("SV", "25 Avenida Norte #1234", r"(\d{1,2}) Avenida Norte #\d{4}"),
    ],
)
def test_a_numbered_street_keeps_its_form_within_the_countrys_numbers(country, original, pattern):
    new = one(original, "CALLE", country)
    m = re.fullmatch(pattern, new)
    assert m and new != original, (original, new)
    table = street_numbering.numbering()
    assert int(m.group(1)) in table[(country, "ordinal")]
    if "zona" in original:
        assert int(m.group(2)) in table[("GT", "zone")] and m.group(2) != "10"


def test_a_zone_alone_gets_another_zone():
    new = one("zona 10", "TERRITORIO", "GT")
    m = re.fullmatch(r"zona (\d{1,2})", new)
    assert m and int(m.group(1)) in street_numbering.numbering()[("GT", "zone")]
    assert new != "zona 10"


@pytest.mark.parametrize(
    "original",
    [
        "de donde fue el cine 2 c. al sur",
        "del parque central 1 c. arriba, 20 vrs. al lago",
        "De la Farmacia Xolotlán 3 cuadras al norte",
    ],
)
@pytest.mark.parametrize("country", ["NI", "ES"])
def test_a_landmark_address_gets_another_landmark(original, country):
    new = one(original, "CALLE", country)  # a Nicaraguan report read as Spain's too
    assert landmark_directions.read(new) is not None, new
    units = [m.group("unit") for m in landmark_directions.LEG.finditer(original)]
    assert [m.group("unit") for m in landmark_directions.LEG.finditer(new)] == units
    assert "Xolotlán" not in new and new[0].isupper() == original[0].isupper()
    assert any(new.lower().startswith(("de " + x, "del " + x[3:])) for x in _landmarks())


def _landmarks():
    return landmark_directions.landmarks()


def test_a_street_with_a_number_sign_keeps_it():
    new = one("Calle Los Castaños #123", "CALLE", "SV")
    assert re.fullmatch(r"Calle [^\d#]+ #\d{3}", new) and "Castaños" not in new


def test_the_numbering_file_names_a_bad_row(tmp_path, monkeypatch):
    from meddocan_deid.deid.surrogates import tables

    (tmp_path / street_numbering.FILE).write_text("GT\tzone\t1-x\n", encoding="utf-8")
    monkeypatch.setattr(tables, "DATA", tmp_path)
    monkeypatch.setattr(street_numbering, "DATA", tmp_path)
    tables.rows.cache_clear()
    street_numbering.numbering.cache_clear()
    try:
        with pytest.raises(street_numbering.NumberingFileError, match="street_numbering.tsv"):
            street_numbering.numbering()
    finally:
        tables.rows.cache_clear()
        street_numbering.numbering.cache_clear()


def test_a_landmark_form_needs_its_legs():
    assert landmark_directions.read("de la iglesia 2 c. al sur") is not None
    assert landmark_directions.read("de la iglesia") is None
    assert landmark_directions.read("Calle 50") is None
    assert landmark_directions.surrogate(random.Random(1), "Calle 50") is None


@pytest.mark.parametrize("country", ["GT", "SV", "HN", "NI", "PA"])
def test_places_and_institutions_of_the_country(country):
    own = [i for i in institutions() if i.country == country]
    city = places(country)[0]
    # a division that is no part of the city's name (`Ciudad de Guatemala`, `Guatemala`)
    division = next(d for d in divisions(country) if d not in city and city not in d)
    text = f"Atendido en {own[0].name}, vive en {city}, {division}."
    values = [("INSTITUCION", own[0].name), ("TERRITORIO", city), ("TERRITORIO", division)]
    spans = sorted((lab, text.index(v), text.index(v) + len(v)) for lab, v in values)
    res = apply_operator(text, spans, "surrogate", KEY, "r1", DeidOptions(country=country))
    got = {text[r.start : r.end]: res.text[r.new_start : r.new_end] for r in res.replacements}
    names = {n: i.country for i in institutions() for n in i.names}
    assert names.get(got[own[0].name]) == country, got
    assert got[city] in places(country) + divisions(country), got
    assert got[division] in divisions(country), got


def test_the_invented_reports_get_valid_surrogates_of_their_country():
    docs = list(read_brat_dir(SET_DIR))
    assert {d.doc_id[:2] for d in docs} == {"gt", "sv", "hn", "ni", "pa"}
    checked = 0
    for doc in docs:
        country = country_of(doc.text, doc.entities)
        assert country == doc.doc_id[:2].upper()
        res = apply_operator(doc.text, doc.entities, "surrogate", KEY, scope=doc.doc_id)
        for r in res.replacements:
            value, new = doc.text[r.start : r.end], res.text[r.new_start : r.new_end]
            assert value not in res.text, value
            check = kind_check(value, r.label, country)
            if r.label in ("ID_SUJETO_ASISTENCIA", "NUMERO_TELEFONO"):
                assert check is not None and check.valid(new), (value, new)
                checked += 1
    assert checked == 2 * len(docs)


@pytest.mark.parametrize("digits", [13, 14, 16])
def test_a_spanish_report_reads_no_new_kind_in_its_long_numbers(digits):
    """In a report of Spain, a 13-, 14- or 16-digit patient number whose digits happen to pass
    a Guatemalan CUI's, a Salvadoran NIT's or a Colombian NIT's check keeps the surrogate kind
    it had (none of these), while the same value in a report of that country is read as it."""
    rng = random.Random(digits)
    kinds = {"cui_gt": "GT", "nit_sv": "SV", "nit_co": "CO"}
    passing = {name: 0 for name in kinds}
    for _ in range(3000):
        value = str(rng.randrange(1, 10)) + "".join(
            str(rng.randrange(10)) for _ in range(digits - 1)
        )
        spanish = national_ids.kind_of(value, "ID_SUJETO_ASISTENCIA", "ES")
        assert (
            spanish is None
            or spanish.name not in kinds
            or (spanish.name == "nit_co" and digits < 16)
        ), value
        for name, country in kinds.items():
            kind = national_ids.BY_NAME[name]
            if kind.shape.fullmatch(value) and kind.valid(value):
                own = national_ids.kind_of(value, "ID_SUJETO_ASISTENCIA", country)
                passing[name] += own is not None and own.name == name
    # the check is reached: 13 and 14 digits pass a new kind's check in its country now and
    # then; 16 digits fit no kind
    assert (sum(passing.values()) > 0) == (digits < 16)
