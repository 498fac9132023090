"""Surrogates of the report's country: places, institutions, centres, streets and names of
that country (surrogates/country_places.py, institutions.py, streets.py, names.py)."""

import re

import pytest

from meddocan_deid.country_data import divisions, institutions, places, spanish_places
from meddocan_deid.deid.gazetteer import load_gazetteer
from meddocan_deid.deid.operators import apply_operator
from meddocan_deid.deid.options import DeidOptions
from meddocan_deid.deid.surrogates.names import country_lists
from meddocan_deid.deid.surrogates.places import province_of
from meddocan_deid.deid.surrogates.vocabulary import drawn_words, words_of
from meddocan_deid.lexicon import lookup_key

KEY = b"country-surrogates-test-key-0001"


def surrogates(text, values, country=None, scope="r1"):
    """{value: its surrogate} for (label, value) pairs of an invented text."""
    spans = sorted(
        ((label, text.index(value), text.index(value) + len(value)) for label, value in values),
        key=lambda s: s[1],
    )
    result = apply_operator(
        text, spans, "surrogate", key=KEY, scope=scope, options=DeidOptions(country=country)
    )
    return {
        text[r.start : r.end]: result.text[r.new_start : r.new_end] for r in result.replacements
    }


MX = (
    "Paciente Juan Pérez Hernández, derechohabiente del IMSS (Instituto Mexicano del Seguro "
    "Social), adscrito a la UMF No. 12. Domicilio: Av. Insurgentes Sur 1234 int. 5, Col. Roma "
    "Norte, alcaldía Coyoacán, Ciudad de México, C.P. 06700. Nació en Jalisco."
)
MX_VALUES = [
    ("NOMBRE_SUJETO_ASISTENCIA", "Juan Pérez Hernández"),
    ("INSTITUCION", "IMSS"),
    ("INSTITUCION", "Instituto Mexicano del Seguro Social"),
    ("CENTRO_SALUD", "UMF No. 12"),
    ("CALLE", "Av. Insurgentes Sur 1234 int. 5"),
    ("TERRITORIO", "Roma Norte"),
    ("TERRITORIO", "Coyoacán"),
    ("TERRITORIO", "Ciudad de México"),
    ("TERRITORIO", "06700"),
    ("TERRITORIO", "Jalisco"),
]


@pytest.fixture(scope="module")
def mexican():
    return surrogates(MX, MX_VALUES)


def test_places_of_the_country(mexican):
    assert mexican["Coyoacán"] in places("MX")
    assert mexican["Jalisco"] in divisions("MX") and mexican["Jalisco"] != "Jalisco"
    assert mexican["Ciudad de México"] in divisions("MX")
    assert re.fullmatch(r"[1-9]\d{4}", mexican["06700"]) and mexican["06700"] != "06700"
    assert mexican["Roma Norte"] not in ("Roma Norte", "[TERRITORIO]")


def test_institutions_of_the_same_country_and_kind(mexican):
    kinds = {n: (i.country, i.kind) for i in institutions() for n in i.names}
    assert kinds[mexican["IMSS"]] == ("MX", "social_security") and mexican["IMSS"].isupper()
    full = mexican["Instituto Mexicano del Seguro Social"]
    assert kinds[full] == ("MX", "social_security") and not full.isupper()


def test_a_unit_keeps_its_head_and_gets_a_new_number(mexican):
    assert (
        re.fullmatch(r"UMF No\. \d\d", mexican["UMF No. 12"])
        and mexican["UMF No. 12"] != "UMF No. 12"
    )


def test_streets_keep_their_head_and_unit(mexican):
    assert re.fullmatch(r"Av\. [^\d]+ \d{4} int\. \d", mexican["Av. Insurgentes Sur 1234 int. 5"])


def test_names_of_the_country(mexican):
    given, first, second = mexican["Juan Pérez Hernández"].split()
    male, _female, surnames = country_lists("MX")
    assert given in male and first in surnames and second in surnames


@pytest.mark.parametrize(
    "value, pattern",
    [
        ("Calle 10 # 5-51", r"Calle \d{1,2} # \d-\d\d"),
        ("calle 7 e/ 40 y 41", r"calle \d e/ \d\d y \d\d"),
        ("Mz. 4 Lt. 12", r"Mz\. \d Lt\. \d\d"),
        ("Jr. Huallaga 345", r"Jr\. [^\d]+ \d{3}"),
    ],
)
def test_address_forms_of_the_americas_keep_their_shape(value, pattern):
    new = surrogates(f"Vive en {value}.", [("CALLE", value)], country="CO")[value]
    assert re.fullmatch(pattern, new) and new != value


def test_a_centre_of_another_country_and_an_unknown_place():
    text = "Control en CESFAM Cordillera, comuna de Peñalolén, población La Bandera."
    got = surrogates(
        text,
        [
            ("CENTRO_SALUD", "CESFAM Cordillera"),
            ("TERRITORIO", "Peñalolén"),
            ("TERRITORIO", "La Bandera"),
        ],
    )  # detected: Chile
    assert (
        got["CESFAM Cordillera"].startswith("CESFAM ")
        and got["CESFAM Cordillera"] != "CESFAM Cordillera"
    )
    assert got["Peñalolén"] in places("CL")
    assert got["La Bandera"] not in ("La Bandera", "[TERRITORIO]")


def test_spain_is_unchanged_by_default():
    text = "Vive en Getafe (Madrid), C.P. 28901."
    got = surrogates(
        text, [("TERRITORIO", "Getafe"), ("TERRITORIO", "Madrid"), ("TERRITORIO", "28901")]
    )  # detected: Spain; its provinces agree as before
    assert lookup_key(got["Getafe"]) in spanish_places() and got["Getafe"] != "Getafe"
    assert got["28901"][:2] == province_of(got["Madrid"])


def test_no_word_of_a_surrogate_is_made_up(mexican):
    known = drawn_words(load_gazetteer(None))
    for value, new in mexican.items():
        original = set(words_of(value))
        assert all(w in known or w in original for w in words_of(new)), (value, new)


# the postal-code shape before and after its rewrite (linear on long runs of blanks and dots)
_OLD_POSTAL_PREFIX = (
    r"^(?P<pre>(?:c\.?\s?p\.?|cpa|zip|código postal)[\s:.-]*)?(?P<code>.+?)(?P<post>[\s.]*)$"
)


@pytest.mark.parametrize(
    "value, groups",
    [
        ("C.P. 28014", ("C.P. ", "28014", "")),
        ("CP: 46001.", ("CP: ", "46001", ".")),
        ("código postal 08080 .", ("código postal ", "08080", " .")),
        ("ZIP-1001", ("ZIP-", "1001", "")),
        ("CP.", ("CP", ".", "")),
        ("cpa", ("cp", "a", "")),
        ("28014", (None, "28014", "")),
        (".", (None, ".", "")),
        ("C.P.\n28014", ("C.P.\n", "28014", "")),
        ("12\n34", None),
    ],
)
def test_the_postal_prefix_keeps_its_groups(value, groups):
    from meddocan_deid.deid.surrogates.country_places import _PREFIX

    for pattern in (re.compile(_OLD_POSTAL_PREFIX, re.I), _PREFIX):
        m = pattern.match(value)
        assert (m.group("pre", "code", "post") if m else None) == groups


def test_a_university_or_agency_becomes_another_of_its_country_and_kind():
    text = "Estudiante de la Universidad Nacional de Colombia, valorada por el ICBF. Cali."
    values = [
        ("INSTITUCION", "Universidad Nacional de Colombia"),
        ("INSTITUCION", "ICBF"),
    ]
    new = surrogates(text, values, country="CO")
    kinds = {n: (i.country, i.kind) for i in institutions() for n in i.names}
    university = new["Universidad Nacional de Colombia"]
    assert (
        kinds[university] == ("CO", "university")
        and university != "Universidad Nacional de Colombia"
    )
    assert kinds[new["ICBF"]][0] == "CO" and new["ICBF"] != "ICBF"


PA = (
    "Asegurada de la Caja de Seguro Social, cédula 8-123-4567. Domicilio: Calle 50, edificio "
    "12, Pueblo Nuevo. Vive en el corregimiento de Betania. Nació en el Corregimiento de Bella "
    "Vista. Control en David."
)
PA_VALUES = [
    ("CALLE", "Calle 50, edificio 12, Pueblo Nuevo"),
    ("TERRITORIO", "Betania"),
    ("TERRITORIO", "Corregimiento de Bella Vista"),
    ("TERRITORIO", "David"),
]


def test_a_panamanian_address_names_a_corregimiento_of_panama():
    from meddocan_deid.country_data import corregimiento_names

    got = surrogates(PA, PA_VALUES, country="PA")
    names = corregimiento_names("PA")
    assert got["Betania"] in names and got["Betania"] != "Betania"
    head, sep, rest = got["Corregimiento de Bella Vista"].partition("Corregimiento de ")
    assert sep and not head and rest in names and rest != "Bella Vista"
    street = got["Calle 50, edificio 12, Pueblo Nuevo"]
    assert re.fullmatch(r"Calle \d+, edificio \d+, .+", street)
    assert street.rsplit(", ", 1)[1] in names and not street.endswith("Pueblo Nuevo")
    # a corregimiento that is also a city of 15,000 inhabitants or more stays a city
    assert got["David"] in places("PA", 15000)
    known = drawn_words(load_gazetteer(None))
    for value, new in got.items():
        assert all(w in known or w in words_of(value) for w in words_of(new)), (value, new)


def test_a_corregimiento_name_of_another_country_report_is_that_country_place():
    # `Santa Ana` is a Salvadoran department before a Panamanian corregimiento there
    got = surrogates("Vive en Santa Ana.", [("TERRITORIO", "Santa Ana")], country="SV")
    assert got["Santa Ana"] in divisions("SV")
