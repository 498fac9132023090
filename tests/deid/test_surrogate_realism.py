"""Surrogates that read like the real thing: phone numbers in ordinary landline and mobile
ranges (never a special-rate prefix), given names and surnames that keep their role, and
kinship words kept by default. Every value here is invented."""

import re

import pytest

from meddocan_deid.deid import DeidOptions, apply_operator, deidentify
from meddocan_deid.deid.gazetteer import load_gazetteer
from meddocan_deid.deid.surrogates import names
from meddocan_deid.deid.surrogates.names import GIVEN, SURNAME, name_field, token_roles
from meddocan_deid.lexicon import lookup_key

KEY = b"realism-key-0123456789abcdef"
ORDINARY = re.compile(r"^(6\d|7[1-4]|9[1-8]|8[1-8])\d{7}$")
MOBILE = re.compile(r"^(6\d|7[1-4])")


def surrogate(text, label, value, scope, options=None):
    start = text.index(value)
    res = apply_operator(
        text, [(label, start, start + len(value))], "surrogate", KEY, scope=scope, options=options
    )
    (r,) = res.replacements
    return res.text[r.new_start : r.new_end]


def national(number: str) -> str:
    digits = re.sub(r"\D", "", re.sub(r"^\s*\(?(?:\+|00)\s?34\)?", "", number))
    return digits


@pytest.mark.parametrize(
    "value",
    [
        "915 37 48 21",
        "600123456",
        "+34 912 345 678",
        "(+34) 683 22 11 00",
        "803 123 456",
        "900 100 200",
        "807-55-44-33",
        "0034 722 000 111",
        "983.22.10.10",
    ],
)
def test_phone_surrogates_in_ordinary_ranges_over_500_scopes(value):
    mobile = bool(MOBILE.match(national(value)))
    for i in range(500):
        new = surrogate(f"Teléfono: {value}.\n", "NUMERO_TELEFONO", value, f"s{i}")
        digits = national(new)
        assert ORDINARY.match(digits), (value, new)
        assert (
            bool(MOBILE.match(digits)) == mobile
        )  # a mobile stays a mobile, a landline a landline
        assert re.sub(r"\d", "9", new) == re.sub(r"\d", "9", value)  # the format is kept
        assert not re.match(r"^(80[0-9]|90[0-9]|70)", digits)


def lists():
    _m, _f, _mf, _ff, first_f, surnames_t, surname_f = names.name_lists(load_gazetteer(None))
    return first_f, {lookup_key(s) for s in surnames_t}


def test_a_surname_that_is_also_a_first_name_stays_a_surname():
    first_f, surnames_only = lists()
    assert lookup_key("Martín") in first_f  # the case that matters: a word in both lists
    for i in range(60):
        text = "Datos del paciente.\nNombre: Begoña.\nApellidos: Martín Urrutia.\n"
        new = surrogate(text, "NOMBRE_SUJETO_ASISTENCIA", "Martín Urrutia", f"s{i}")
        assert all(lookup_key(w) in surnames_only for w in new.split()), new
        given = surrogate("Nombre: Martín.\n", "NOMBRE_SUJETO_ASISTENCIA", "Martín", f"s{i}")
        assert lookup_key(given) in first_f and lookup_key(given) not in surnames_only, given
        full = surrogate(
            "Remitido por: Pedro Martín Urrutia.\n",
            "NOMBRE_PERSONAL_SANITARIO",
            "Pedro Martín Urrutia",
            f"s{i}",
        )
        words = full.split()
        assert lookup_key(words[0]) in first_f and lookup_key(words[0]) not in surnames_only, full
        assert all(lookup_key(w) in surnames_only for w in words[1:]), full


@pytest.mark.parametrize(
    "words,field,after_title,expected",
    [
        (["Martín"], SURNAME, False, [SURNAME]),
        (["Martín"], GIVEN, False, [GIVEN]),
        (["Ana", "Ruiz"], GIVEN, False, [GIVEN, SURNAME]),  # `Nombre: Ana Ruiz`
        (["Juan", "Martín"], "", False, [GIVEN, SURNAME]),
        (["Martín", "García"], "", False, [GIVEN, SURNAME]),
        (["García", "López"], "", False, [SURNAME, SURNAME]),
        (["Luis", "Albarrán", "Tejero"], "", False, [GIVEN, SURNAME, SURNAME]),
        (["Ana", "José", "Ruiz", "Gil"], "", False, [GIVEN, GIVEN, SURNAME, SURNAME]),
        (["Martín"], "", True, [SURNAME]),  # `Dr. Martín`
    ],
)
def test_token_roles(words, field, after_title, expected):
    assert token_roles(words, load_gazetteer(None), field, after_title) == expected


@pytest.mark.parametrize(
    "line,expected",
    [
        ("Nombre: ", GIVEN),
        ("Apellidos: ", SURNAME),
        ("Nombre y apellidos: ", ""),
        ("Remitido por: ", ""),
        ("APELLIDOS:\t", SURNAME),
    ],
)
def test_name_field(line, expected):
    text = "Datos del paciente.\n" + line + "Zq"
    assert name_field(text, text.index("Zq")) == expected


def test_kinship_words_kept_by_default_in_the_api(rule_nlp):
    text = "Informe clínico: niña de 7 años; su madre la acompaña.\n"
    kept = deidentify(text, "surrogate", KEY, nlp=rule_nlp)
    assert "su madre la acompaña" in kept.text
    swapped = deidentify(text, "surrogate", KEY, nlp=rule_nlp, keep_kinship=False)
    assert "su madre" not in swapped.text
    assert DeidOptions().keep_kinship is True


def test_kept_kinship_never_keeps_digits_or_names():
    # a relative's value that is not a kinship word still gets a surrogate
    text = "Acompañante: 000.\n"
    new = surrogate(text, "FAMILIARES_SUJETO_ASISTENCIA", "000", "s1")
    assert new != "000"
    text = "Acompañada de su madre Begoña.\n"
    new = surrogate(text, "FAMILIARES_SUJETO_ASISTENCIA", "madre Begoña", "s1")
    assert new.startswith("madre ") and "Begoña" not in new


# --- surrogates of the original's kind, through the Python API on hand-made entities --------
import datetime as dt  # noqa: E402

import spacy  # noqa: E402

import meddocan_deid  # noqa: E402
from meddocan_deid.deid.gazetteer import load_gazetteer as _load_gazetteer  # noqa: E402
from meddocan_deid.deid.surrogates.dates import read_date  # noqa: E402
from meddocan_deid.deid.surrogates.person import read_profession  # noqa: E402
from meddocan_deid.deid.surrogates.places import geo, town_pool  # noqa: E402
from meddocan_deid.deid.surrogates.vocabulary import drawn_words, words_of  # noqa: E402

_BLANK = spacy.blank("es")
SCOPES = [f"report-{i}" for i in range(30)]


def make_doc(text, ents):
    doc = _BLANK(text)
    spans, pos = [], 0
    for label, surface in ents:
        start = text.index(surface, pos)
        spans.append(
            doc.char_span(start, start + len(surface), label=label, alignment_mode="expand")
        )
        pos = start + len(surface)
    doc.ents = spans
    return doc


def api_surrogates(text, ents, scope="report-1", key=KEY):
    res = meddocan_deid.deidentify(make_doc(text, ents), mode="surrogate", key=key, scope=scope)
    return [res.text[r.new_start : r.new_end] for r in res.replacements]


def unlisted_words(new, original):
    """Words of a surrogate drawn from no list and absent from the original: made-up letters."""
    known = drawn_words(_load_gazetteer(None))
    return [w for w in words_of(new) if w not in known and w not in words_of(original)]


# (label, invented value, what the surrogate starts with, what it ends with)
ORGANISATIONS = [
    ("HOSPITAL", "Hospital Universitario de Valdeinventado", "Hospital Universitario ", ""),
    ("HOSPITAL", "HOSPITAL COMARCAL DE VILLAFICTICIA", "HOSPITAL COMARCAL ", ""),
    ("HOSPITAL", "Clínica Dental Sonrisa Ficticia", "Clínica Dental ", ""),
    ("CENTRO_SALUD", "Centro de Salud Barrio Inventado", "Centro de Salud ", ""),
    ("CENTRO_SALUD", "CAP Sant Inventat", "CAP ", ""),
    ("INSTITUCION", "Colegio Público Fidel Inventado", "Colegio Público ", ""),
    ("INSTITUCION", "IES Valle Ficticio", "IES ", ""),
    ("INSTITUCION", "CEIP Los Inventos", "CEIP ", ""),
    ("INSTITUCION", "Asociación de Vecinos Barrio Ficticio", "Asociación de Vecinos ", ""),
    ("INSTITUCION", "Fundación Inventada del Sur", "Fundación ", ""),
    ("INSTITUCION", "Residencia de Mayores Villa Ficticia", "Residencia de Mayores ", ""),
    ("INSTITUCION", "Ayuntamiento de Villafalsa", "Ayuntamiento de ", ""),
    ("INSTITUCION", "Universidad de Ciudadfalsa", "Universidad ", ""),
    (
        "INSTITUCION",
        "Juzgado de Primera Instancia nº 2 de Villafalsa",
        "Juzgado de Primera Instancia nº ",
        "",
    ),
    ("INSTITUCION", "Construcciones Inventadas Pérez S.L.", "Construcciones ", " S.L."),
    ("INSTITUCION", "Inventos Ficticios, S.A.", "", ", S.A."),
    ("INSTITUCION", "Limpiezas Falsas S.L.U.", "Limpiezas ", " S.L.U."),
]


@pytest.mark.parametrize("label,value,head,suffix", ORGANISATIONS)
def test_organisations_keep_their_kind(label, value, head, suffix):
    text = f"Consta: {value}\n"
    seen = set()
    for scope in SCOPES:
        (new,) = api_surrogates(text, [(label, value)], scope)
        assert new.startswith(head) and new.endswith(suffix), (value, new)
        assert lookup_key(new) != lookup_key(value) and not new.startswith("[")
        assert not unlisted_words(new, value), (value, new)
        seen.add(new)
    assert len(seen) > 5  # drawn per scope, not one fixed name


def test_organisation_surrogates_are_keyed():
    text = (
        "Derivado desde Hospital General de Villafalsa; alta en Hospital General de Villafalsa.\n"
    )
    value = "Hospital General de Villafalsa"
    a, b = api_surrogates(text, [("HOSPITAL", value), ("HOSPITAL", value)], "r1")
    assert a == b  # the same value, the same surrogate within a scope
    assert api_surrogates(text, [("HOSPITAL", value), ("HOSPITAL", value)], "r1") == [a, b]
    others = {
        api_surrogates(
            text, [("HOSPITAL", value)] * 2, "r1", key=b"another-key-" + bytes([65 + i]) * 20
        )[0]
        for i in range(5)
    }
    assert others - {a}


@pytest.mark.parametrize(
    "label,value",
    [
        ("INSTITUCION", "CNIO"),
        ("INSTITUCION", "Sanitaria Inventada"),
        ("HOSPITAL", "HUVF"),
        ("HOSPITAL", "Hospital"),
        ("INSTITUCION", "Audiencia Nacional"),
    ],
)
def test_organisations_of_no_kind_become_the_tag(label, value):
    assert api_surrogates(f"Consta: {value}.\n", [(label, value)]) == [f"[{label}]"]


# (value, language read); every date of one report moves by the report's offset
DATES = [
    ("14 de febrer de 2021", "ca"),
    ("3 d'abril de 2021", "ca"),
    ("14 de xaneiro de 2021", "gl"),
    ("2021eko otsailaren 14a", "eu"),
    ("14-feb-2021", "es"),
    ("14 DE FEBRERO DE 2021", "es"),
    ("lunes, 15 de febrero de 2021", "es"),
    ("14.02.2021", "num"),
    ("2021-02-14", "num"),
]


def test_dates_keep_their_form_and_language():
    anchor = "10/01/2021"
    text = "Fechas: " + "; ".join([anchor] + [v for v, _l in DATES]) + ".\n"
    ents = [("FECHAS", anchor)] + [("FECHAS", v) for v, _l in DATES]
    for scope in SCOPES:
        new = api_surrogates(text, ents, scope)
        offset = (dt.datetime.strptime(new[0], "%d/%m/%Y").date() - dt.date(2021, 1, 10)).days
        assert abs(offset) >= 32
        for (value, lang), sur in zip(DATES, new[1:]):
            old, got = read_date(value), read_date(sur)
            assert old.lang == lang and got is not None and lang in got.langs, (value, sur)
            moved = dt.date(got.year, got.month, got.day) - dt.date(old.year, old.month, old.day)
            assert moved.days == offset, (value, sur)
            if old.weekday is not None:
                assert got.weekday == dt.date(got.year, got.month, got.day).isoweekday()
            if value.isupper():
                assert sur.isupper()


@pytest.mark.parametrize("value", ["la semana pasada", "mesa", "Zq-Xw"])
def test_values_that_are_not_dates_become_the_tag(value):
    assert api_surrogates(f"Fecha: {value}.\n", [("FECHAS", value)]) == ["[FECHAS]"]


@pytest.mark.parametrize(
    "value,group,genders,number",
    [
        ("enfermera", "2", ("F", "N"), "sg"),
        ("pescador", "6", ("M", "N"), "sg"),
        ("Pescadora", "6", ("F", "N"), "sg"),
        ("albañiles", "7", ("M", "N"), "pl"),
        ("economista", "2", ("N",), "sg"),
        ("soldado", "0", ("M", "N"), "sg"),
        ("ingeniero informático", "2", ("M", "N"), "sg"),
        ("camarera", "5", ("F", "N"), "sg"),
    ],
)
def test_professions_keep_group_gender_and_number(value, group, genders, number):
    for scope in SCOPES:
        (new,) = api_surrogates(f"Trabaja como {value}.\n", [("PROFESION", value)], scope)
        entry, gender, num = read_profession(new)
        assert entry.group == group and gender in genders and num == number, (value, new)
        assert lookup_key(new) != lookup_key(value) and new[:1].isupper() == value[:1].isupper()


@pytest.mark.parametrize("value", ["astronauta de pruebas", "Zqwerty"])
def test_unknown_professions_become_the_tag(value):
    assert api_surrogates(f"Trabaja como {value}.\n", [("PROFESION", value)]) == ["[PROFESION]"]


@pytest.mark.parametrize(
    "value,pattern",
    [
        ("C/Mayor, 12, 3º B", r"C/ [^\d,/]+, [1-9]\d, [1-9]º [A-H]"),
        ("Avda.Inventada 5", r"Avda\. [^\d]+ [1-9]"),
        ("carrer de la Inventada, 7", r"carrer [^\d]+, [1-9]"),
        ("Paraje Ficticio, s/n", r"Paraje [^\d,]+, s/n"),
        ("Inventada kalea 3", r"[^\d]+ kalea [1-9]"),
        ("Plaza Ficticia 14, 2ºA", r"Plaza [^\d]+ [1-9]\d, [1-9]º[A-H]"),
    ],
)
def test_streets_keep_their_head_word_and_number_shapes(value, pattern):
    for scope in SCOPES:
        (new,) = api_surrogates(f"Domicilio: {value}\n", [("CALLE", value)], scope)
        assert re.fullmatch(pattern, new), (value, new)
        assert not unlisted_words(new, value), (value, new)


def test_postal_code_town_province_and_community_agree():
    text = "Domicilio: 28029 Getafe (Madrid), Comunidad de Madrid. Natural de Tolosa (Gipuzkoa).\n"
    ents = [
        ("TERRITORIO", v)
        for v in ("28029", "Getafe", "Madrid", "Comunidad de Madrid", "Tolosa", "Gipuzkoa")
    ]
    g = geo()
    for scope in SCOPES:
        postal, town, province, community, town2, province2 = api_surrogates(text, ents, scope)
        code = g.by_name[lookup_key(province)]
        assert postal[:2] == code and postal != "28029"
        assert town in town_pool(code, _load_gazetteer(None))
        assert community == g.community[code] and community != "Comunidad de Madrid"
        code2 = g.by_name[lookup_key(province2)]
        assert town2 in town_pool(code2, _load_gazetteer(None)) and code2 != code
        assert {g.community[code], g.community[code2]}.isdisjoint(
            {"Comunidad de Madrid", "País Vasco"}
        )


def test_no_word_is_scrambled():
    """Word labels never get random letters: each surrogate word comes from a list or the
    value becomes the tag."""
    values = [
        ("NOMBRE_SUJETO_ASISTENCIA", "Zoilo Inventádez"),
        ("PROFESION", "carpintera"),
        ("FECHAS", "ayer"),
        ("HOSPITAL", "Hospital Inventado"),
        ("INSTITUCION", "Empresa Fantasma S.L."),
        ("CENTRO_SALUD", "Centro de Salud Inventado"),
        ("CALLE", "Calle Inventada 3"),
        ("TERRITORIO", "Villafalsa"),
        ("PAIS", "Ruritania"),
        ("OTROS_SUJETO_ASISTENCIA", "recluso"),
        ("OTROS_SUJETO_ASISTENCIA", "AB-1234"),
    ]
    text = "Datos: " + "; ".join(v for _l, v in values) + ".\n"
    for scope in SCOPES:
        for (label, value), new in zip(values, api_surrogates(text, values, scope)):
            if new != f"[{label}]" and label != "OTROS_SUJETO_ASISTENCIA":
                assert not unlisted_words(new, value), (label, value, new)
    assert api_surrogates(text, values)[-2:][0] == "[OTROS_SUJETO_ASISTENCIA]"  # words: the tag
    assert re.fullmatch(
        r"[A-Z]{2}-\d{4}", api_surrogates(text, values)[-1]
    )  # a code keeps its shape


def test_a_regions_bodies_follow_the_reports_places():
    from meddocan_deid.deid.surrogates.institutions import regional_bodies

    _found, written = regional_bodies()
    text = (
        "Vive en Sevilla. Atendido por el Servicio Andaluz de Salud; ayuda de la Junta de "
        "Andalucía.\n"
    )
    ents = [
        ("TERRITORIO", "Sevilla"),
        ("INSTITUCION", "Servicio Andaluz de Salud"),
        ("INSTITUCION", "Junta de Andalucía"),
    ]
    g = geo()
    for scope in SCOPES:
        province, service, government = api_surrogates(text, ents, scope)
        community = g.community[g.by_name[lookup_key(province)]]
        assert community != "Andalucía"
        assert service == written[(community, "health_service")][0]
        assert government == written[(community, "government")][0]


def test_mutuals_and_insurers_become_another_of_their_list():
    from meddocan_deid.deid.surrogates.tables import words

    text = "Accidente laboral: Fremap. Seguro: Adeslas.\n"
    for scope in SCOPES:
        mutual, insurer = api_surrogates(
            text, [("INSTITUCION", "Fremap"), ("INSTITUCION", "Adeslas")], scope
        )
        assert mutual in words("mutual") and mutual != "Fremap"
        assert insurer in words("insurer") and insurer != "Adeslas"


@pytest.mark.parametrize(
    "value,head,suffix",
    [
        ("Talleres Inventados S.L.", "Talleres ", " S.L."),
        ("IES Valle Ficticio", "IES ", ""),
        ("Inventos Ficticios Abogados", "", " Abogados"),
    ],
)
def test_an_employer_given_as_otros_gets_an_organisation_of_its_kind(value, head, suffix):
    for scope in SCOPES:
        (new,) = api_surrogates(
            f"Trabaja en {value}\n", [("OTROS_SUJETO_ASISTENCIA", value)], scope
        )
        assert (
            new.startswith(head) and new.endswith(suffix) and lookup_key(new) != lookup_key(value)
        ), new
        assert not unlisted_words(new, value), new


def test_a_rest_with_de_keeps_its_build():
    for scope in SCOPES:
        (new,) = api_surrogates(
            "Ingresa en Hospital de Villafalsa\n", [("HOSPITAL", "Hospital de Villafalsa")], scope
        )
        assert new.startswith("Hospital de ") and new != "Hospital de Villafalsa"


def test_a_head_that_is_another_phi_span_is_still_kept():
    text = "Del Hospital General pasa al Hospital General de Villafalsa\n"
    ents = [("HOSPITAL", "Hospital General"), ("HOSPITAL", "Hospital General de Villafalsa")]
    for scope in SCOPES:
        alone, named = api_surrogates(text, ents, scope)
        assert alone == "[HOSPITAL]"  # all head: nothing to replace
        assert named.startswith("Hospital General de ") and "Villafalsa" not in named


def test_a_town_written_in_a_street_gets_the_reports_surrogate():
    value = "Calle Inventada 9, Tolosa (Gipuzkoa)"
    g = geo()
    for scope in SCOPES:
        (new,) = api_surrogates(f"Domicilio: {value}\n", [("CALLE", value)], scope)
        m = re.fullmatch(r"Calle [^\d]+ [1-9], (.+) \((.+)\)", new)
        assert m and "Tolosa" not in new and "Gipuzkoa" not in new, new
        assert m.group(1) in town_pool(g.by_name[lookup_key(m.group(2))], _load_gazetteer(None))
