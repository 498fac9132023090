"""The checks of the surrogate name lists (surrogates/name_filter.py) and the lists they gave
(data/names.tsv, data/name_checks.tsv)."""

import pytest

from meddocan_deid.deid.surrogates.name_filter import (
    FIRST_NAME_PAIRS,
    accent_problem,
    filter_names,
    one_edit,
)
from meddocan_deid.deid.surrogates.names import country_lists
from meddocan_deid.deid.surrogates.tables import rows
from meddocan_deid.lexicon import lookup_key


@pytest.mark.parametrize("name", ["Crúz", "Ruíz", "Rafaél", "Manuél", "Ortíz"])
def test_forbidden_accents(name):
    assert accent_problem(name)


@pytest.mark.parametrize("name", ["Martín", "Raúl", "María", "Díaz", "Ángel", "Rocío", "Ruiz"])
def test_allowed_accents(name):
    assert not accent_problem(name)


def test_one_edit():
    assert one_edit("garica", "garcia") and one_edit("jos", "jose")
    assert not one_edit("garcia", "garcia") and not one_edit("lopez", "perez")


# an invented frame: trusted spellings, US Census-like counts, a dictionary
TRUSTED = {"jaramillo": "Jaramillo", "quevedo": "Quevedo", "ibanez": "Ibáñez", "lopez": "López"}
FREQUENCY = {"ibanez": 30000, "ybanez": 1100, "trevino": 54000, "blanco": 40000, "lopez": 800000}
DICTIONARY = frozenset({"colirio", "blanco", "abrigo"})
SPELLINGS = {"trevino": "Treviño"}


def _filter(names, country="ES", listed=frozenset()):
    return filter_names(names, TRUSTED, FREQUENCY, DICTIONARY, country, SPELLINGS, listed)


def test_what_the_checks_remove_and_why():
    kept, removed = _filter(
        ["Colirio", "Xaramillo", "Quebedo", "Ybanez", "Crúz", "José Luis", "Gollum", "Lopes"]
    )
    reasons = {r.name: r.reason for r in removed}
    assert reasons == {
        "Colirio": "common word",
        "Xaramillo": "variant of Jaramillo",
        "Quebedo": "variant of Quevedo",
        "Ybanez": "rarer spelling of Ibáñez",
        "Crúz": "accent",
        "José Luis": "several words",
        "Gollum": "not a name",
        "Lopes": "variant of López",
    }
    assert kept == []


def test_what_the_checks_keep_and_respell():
    kept, removed = _filter(["Trevino", "Blanco", "Jaramillo", "Ibanez", "Zubizarreta"])
    assert kept == ["Blanco", "Ibáñez", "Jaramillo", "Treviño", "Zubizarreta"]
    assert removed == []


def test_a_dictionary_word_another_list_holds_is_a_name():
    kept, _removed = _filter(["Abrigo"], listed=frozenset({"abrigo"}))
    assert kept == ["Abrigo"]


def test_nahuatl_names_only_in_mexico():
    assert _filter(["Citlali", "Xóchitl"], country="MX")[0] == ["Citlali", "Xóchitl"]
    kept, removed = _filter(["Citlali", "Batlle"], country="CL")
    assert kept == ["Batlle"] and [r.reason for r in removed] == ["Nahuatl"]


def test_first_names_keep_their_own_spellings():
    trusted = {"jenaro": "Jenaro", "jose": "José"}
    kept, removed = filter_names(
        ["Genaro", "Jos"], trusted, {}, frozenset(), "MX", {}, frozenset(), FIRST_NAME_PAIRS
    )
    assert kept == ["Genaro"] and [(r.name, r.reason) for r in removed] == [
        ("Jos", "variant of José")
    ]


def test_the_shipped_lists_pass_the_checks():
    for country in ("ES", "MX", "CO", "CL", "AR", "PE"):
        male, female, surnames = country_lists(country)
        assert len(male) > 50 and len(female) > 50 and len(surnames) > 200
        for name in male + female + surnames:
            assert " " not in name and not accent_problem(name), (country, name)
    mexican = {lookup_key(n) for lists in country_lists("MX") for n in lists}
    assert not {"garica", "gollum", "hernadez", "rodriquez", "jos"} & mexican
    assert "Treviño" in country_lists("MX")[2] and "Citlali" in country_lists("MX")[1]
    assert "Citlali" not in country_lists("CL")[1] and "Citlali" not in country_lists("PE")[1]


def test_the_gazetteer_checks():
    checks = {name: (action, detail) for _kind, name, action, detail in rows("name_checks.tsv")}
    assert checks["Colirio"] == ("remove", "common word")
    assert checks["Xaramillo"] == ("remove", "variant of Jaramillo")
    assert checks["Quebedo"] == ("remove", "variant of Quevedo")
    assert checks["Ybanez"][0] == "remove"
    assert checks["Trevino"] == ("respell", "Treviño")
