"""The readers behind the surrogates: dates in four languages, professions and their ISCO
groups, organisations' kinds, street parts, provinces and codes. Every value is invented."""

import pytest

from meddocan_deid.deid.gazetteer import Gazetteer
from meddocan_deid.deid.surrogates.dates import _eu_number_ending, read_date, shift_date
from meddocan_deid.deid.surrogates.institutions import parse
from meddocan_deid.deid.surrogates.person import is_code, plural, profession_table, read_profession
from meddocan_deid.deid.surrogates.places import geo, province_of, split_street, town_pool
from meddocan_deid.deid.surrogates.tables import rows


@pytest.mark.parametrize(
    "text,fields,lang,langs",
    [
        ("14/02/2021", (14, 2, 2021, None), "num", {"num"}),
        ("14-02-21", (14, 2, 2021, None), "num", {"num"}),
        ("2021-02-14", (14, 2, 2021, None), "num", {"num"}),
        ("14/02", (14, 2, None, None), "num", {"num"}),
        ("14 de febrero de 2021", (14, 2, 2021, None), "es", {"es"}),
        ("Feb. 2021", (None, 2, 2021, None), "es", {"es", "ca", "gl"}),
        ("lunes, 15 de febrero de 2021", (15, 2, 2021, 1), "es", {"es"}),
        ("14 de febrer del 2021", (14, 2, 2021, None), "ca", {"ca"}),
        ("3 d'abril de 2021", (3, 4, 2021, None), "ca", {"ca"}),
        ("dijous 4 de març", (4, 3, None, 4), "ca", {"ca"}),
        ("14 de xaneiro do 2021", (14, 1, 2021, None), "gl", {"gl"}),
        ("abril de 2021", (None, 4, 2021, None), "es", {"es", "ca", "gl"}),
        ("2021eko otsailaren 14a", (14, 2, 2021, None), "eu", {"eu"}),
        ("2020ko urriaren 5ean", (5, 10, 2020, None), "eu", {"eu"}),
        ("Otoño del 2017", (None, None, 2017, None), "es", {"es"}),
        ("jueves", (None, None, None, 4), "es", {"es"}),
        ("11-III-2024", (11, 3, 2024, None), "num", {"num"}),
    ],
)
def test_read_date(text, fields, lang, langs):
    got = read_date(text)
    assert (got.day, got.month, got.year, got.weekday) == fields
    assert got.lang == lang and got.langs == frozenset(langs)


@pytest.mark.parametrize(
    "text",
    [
        "la semana pasada",
        "mesa",
        "lunes 10",
        "14 de febrero de 2021 y algo",
        "32/01/2021",
        "14 de febrero de marzo",
        "Navidad de 2022",
        "14 i 15",
    ],
)
def test_read_date_refuses_what_is_not_a_date(text):
    assert read_date(text) is None and shift_date(text, 45) is None


def test_a_weekday_alone_that_would_not_move_is_not_shifted():
    assert shift_date("jueves", 700) == "jueves"  # 100 weeks: the generator then writes the tag


@pytest.mark.parametrize(
    "text,offset,expected",
    [
        ("14 de febrer de 2021", 45, "31 de març de 2021"),
        ("14 de febrer de 2021", 60, "15 d'abril de 2021"),  # Catalan elision before a vowel
        ("14 d'abril de 2021", 45, "29 de maig de 2021"),  # and none before a consonant
        ("14 D'ABRIL DE 2021", 45, "29 DE MAIG DE 2021"),
        ("14 de xaneiro de 2021", 45, "28 de febreiro de 2021"),
        ("2021eko otsailaren 14a", 45, "2021eko martxoaren 31a"),
        (
            "2021eko urriaren 5ean",
            -300,
            "2020ko abenduaren 9an",
        ),  # -eko/-ko, -ean/-an follow the new numbers
        ("martxoaren 3an", 45, "apirilaren 17an"),
        (
            "jueves 2 de Agosto de 2018",
            45,
            "domingo 16 de Septiembre de 2018",
        ),  # the new date's weekday
        ("14-feb-2021", 45, "31-mar-2021"),
        ("Sept. 2020", 45, "Oct. 2020"),
        ("1º de mayo de 2020", 45, "15 de junio de 2020"),
        ("Otoño del 2017", 45, "Invierno del 2018"),  # mid-November + 45 days: next year's winter
        ("Otoño del 2017", 330, "Otoño del 2018"),
        ("invierno de 2020", -45, "otoño de 2019"),
        ("verano", 200, "invierno"),  # a season alone: the offset in seasons
        ("verano", 45, "otoño"),  # at least one season
        ("ESTIU", -45, "PRIMAVERA"),
        ("jueves", 45, "domingo"),  # a weekday alone: the offset in days
        ("dilluns", -45, "divendres"),
        ("11-III-2024", 45, "25-IV-2024"),  # Roman month numbers
        ("2-X-2025", 700, "2-IX-2027"),
        ("2024KO URRIAREN 16A", 45, "2024KO AZAROAREN 30A"),
    ],
)
def test_shift_date_languages(text, offset, expected):
    assert shift_date(text, offset) == expected


@pytest.mark.parametrize(
    "value,ending,expected",
    [
        (1, "an", "ean"),
        (2, "an", "an"),
        (5, "ean", "ean"),
        (11, "an", "n"),
        (14, "a", "a"),
        (31, "ean", "n"),
        (2021, "ko", "eko"),
        (2020, "eko", "ko"),
        (2015, "ko", "eko"),
        (2011, "eko", "ko"),
        (2000, "eko", "ko"),
        (1900, "ko", "eko"),
        (1990, "ko", "eko"),
    ],
)
def test_basque_number_endings(value, ending, expected):
    assert _eu_number_ending(value, ending) == expected


@pytest.mark.parametrize(
    "text,masculine,group,gender,number",
    [
        ("enfermera", "enfermero", "2", "F", "sg"),
        ("Pescador", "pescador", "6", "M", "sg"),
        ("ALBAÑILES", "albañil", "7", "M", "pl"),
        ("economista", "economista", "2", "N", "sg"),
        ("ingeniero informático de sistemas", "ingeniero informático", "2", "M", "sg"),
        ("guardias civiles", "guardia civil", "5", "N", "pl"),
        ("peones", "peón", "9", "M", "pl"),
        ("técnica de laboratorio", "técnico de laboratorio", "3", "F", "sg"),
        ("soldado", "soldado", "0", "N", "sg"),
    ],
)
def test_read_profession(text, masculine, group, gender, number):
    entry, g, n = read_profession(text)
    assert (entry.masculine, entry.group, g, n) == (masculine, group, gender, number)


def test_profession_table_is_well_formed():
    entries, _index = profession_table()
    assert len(entries) >= 300
    assert {e.group for e in entries} == set("0123456789")
    assert all(e.lang in ("es", "ca", "gl", "eu") for e in entries)
    assert len({e.masculine for e in entries}) == len(entries)  # one line per profession


@pytest.mark.parametrize(
    "phrase,expected",
    [
        ("técnico de laboratorio", "técnicos de laboratorio"),
        ("peón", "peones"),
        ("juez", "jueces"),
        ("guardia civil", "guardias civiles"),
        ("ATS", "ATS"),
        ("friegaplatos", "friegaplatos"),
        ("chef", "chefs"),
    ],
)
def test_plural(phrase, expected):
    assert plural(phrase) == expected


@pytest.mark.parametrize(
    "value,label,kind,head,rest,suffix",
    [
        (
            "Hospital Universitario de Valdeinventado",
            "HOSPITAL",
            "hospital",
            "Hospital Universitario",
            "de Valdeinventado",
            "",
        ),
        (
            "Centro de Salud Barrio Inventado",
            "CENTRO_SALUD",
            "health_centre",
            "Centro de Salud",
            "Barrio Inventado",
            "",
        ),
        ("CAP Sant Inventat", "CENTRO_SALUD", "health_centre_ca", "CAP", "Sant Inventat", ""),
        (
            "Colegio Público Fidel Inventado",
            "INSTITUCION",
            "school",
            "Colegio Público",
            "Fidel Inventado",
            "",
        ),
        ("IES Valle Ficticio", "INSTITUCION", "school", "IES", "Valle Ficticio", ""),
        (
            "Asociación de Vecinos Inventados",
            "INSTITUCION",
            "association",
            "Asociación de Vecinos",
            "Inventados",
            "",
        ),
        (
            "Residencia de Mayores Ficticia",
            "INSTITUCION",
            "residence",
            "Residencia de Mayores",
            "Ficticia",
            "",
        ),
        (
            "Ayuntamiento de Villafalsa",
            "INSTITUCION",
            "town_hall",
            "Ayuntamiento de",
            "Villafalsa",
            "",
        ),
        (
            "Juzgado de lo Social nº 4 de Villafalsa",
            "INSTITUCION",
            "court",
            "Juzgado de lo Social nº 4 de",
            "Villafalsa",
            "",
        ),
        (
            "Construcciones Inventadas S.L.",
            "INSTITUCION",
            "company",
            "Construcciones",
            "Inventadas",
            " S.L.",
        ),
        (
            "Inventos Ficticios, S.A.",
            "INSTITUCION",
            "company_suffix",
            "",
            "Inventos Ficticios",
            ", S.A.",
        ),
        ("12 de Inventado", "HOSPITAL", "hospital", "", "12 de Inventado", ""),
    ],
)
def test_parse_organisation(value, label, kind, head, rest, suffix):
    got = parse(value, label)
    assert (got.kind, got.head, got.rest, got.suffix) == (kind, head, rest, suffix)


@pytest.mark.parametrize(
    "value,label",
    [
        ("CNIO", "INSTITUCION"),
        ("HUVF", "HOSPITAL"),
        ("Hospital", "HOSPITAL"),
        ("Inventada Sin Cabeza", "INSTITUCION"),
    ],
)
def test_parse_organisation_of_no_kind(value, label):
    assert parse(value, label) is None


@pytest.mark.parametrize(
    "value,parts",
    [
        ("C/Mayor, 12", ("C/", "Mayor", "", ", 12")),
        ("Avda. de la Inventada 5, 2º B", ("Avda.", "de la Inventada", "", " 5, 2º B")),
        (
            "Callejón del Ficticio 3",
            ("Callejón", "del Ficticio", "", " 3"),
        ),  # `calle` is not its head
        ("Inventada kalea 3", ("", "Inventada", "kalea", " 3")),
        ("INVENTADA, 7", ("", "INVENTADA", "", ", 7")),
    ],
)
def test_split_street(value, parts):
    assert split_street(value) == parts


def test_province_tables():
    g = geo()
    assert len(g.names) == 52 and sorted(g.names) == [f"{i:02d}" for i in range(1, 53)]
    assert set(g.towns) == set(g.names)  # every province has towns
    assert set(g.community.values()) == {name for name, *_ in rows("communities.tsv")}
    assert (
        province_of("28029") == "28"
        and province_of("E-08001") == "08"
        and province_of("99999") is None
    )
    assert (
        province_of("Gerona") == "17"
        and province_of("Vizcaya") == "48"
        and province_of("Tolosa") == "20"
    )


def test_town_pool_takes_the_gazetteer_spelling():
    gaz = Gazetteer({"towns": ("Tolosá", "Alcoy/Alcoi")}, None)
    assert "Tolosá" in town_pool("20", gaz) and "Tolosa" not in town_pool("20", gaz)
    assert "Tolosa" in town_pool("20", Gazetteer({}, None))  # no gazetteer: GeoNames' spelling


@pytest.mark.parametrize(
    "value,code",
    [
        ("AB-1234", True),
        ("3F", True),
        ("12/2019", True),
        ("recluso", False),
        ("Exp. 12/2019", False),
        ("tarjeta 1234", False),
    ],
)
def test_is_code(value, code):
    assert is_code(value) is code


# a street value's name and rest before and after the rewrite (linear on long blank runs)
_OLD_NAME_REST = (
    r"(?P<name>[^,\d]*?)(?P<rest>\s*(?:,|\bn\.?\s?º|\bnº|\bnúm|\bnum\.|\bs/n|\bkm|\d).*)?$"
)


@pytest.mark.parametrize(
    "after, parts",
    [
        ("Mayor 12", ("Mayor", " 12")),
        ("Mayor, 12", ("Mayor", ", 12")),
        ("del Pino   nº 4, 2ºB", ("del Pino", "   nº 4, 2ºB")),
        ("Ancha N. º 7", ("Ancha", " N. º 7")),
        ("Real s/n", ("Real", " s/n")),
        ("Carretera Vieja km 3", ("Carretera Vieja", " km 3")),
        ("Olmos núm. 9", ("Olmos", " núm. 9")),
        ("Kmart 1", ("", "Kmart 1")),
        ("Nueva num.", ("Nueva", " num.")),
        ("Numancia", ("Numancia", None)),
        ("Alta  \n", ("Alta  ", None)),
        ("Sol\n 3", ("Sol", "\n 3")),
        ("", ("", None)),
    ],
)
def test_a_street_splits_into_name_and_rest_as_before(after, parts):
    import re

    from meddocan_deid.deid.surrogates.places import NAME_REST

    for pattern in (re.compile(_OLD_NAME_REST, re.I | re.S), NAME_REST):
        m = pattern.match(after)
        assert m.group("name", "rest") == parts
