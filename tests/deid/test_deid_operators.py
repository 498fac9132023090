"""The de-identification operators on hand-made texts and spans (no pipeline): one table
row per operator and PHI shape, in the DEDUCE/Presidio style."""

import re

import pytest

from meddocan_deid.deid import DeidOptions, apply_operator, deidentify
from meddocan_deid.deid.gazetteer import load_gazetteer
from meddocan_deid.deid.keys import DeidKeyError, Keyed, load_key
from meddocan_deid.deid.surrogates import Context, names, shift_date
from meddocan_deid.lexicon import lookup_key

KEY = b"test-key-0123456789abcdef"
OTHER_KEY = b"another-key-0123456789abcdef"


def shape(text):
    return re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", text)))


def one(
    value, label, mode="surrogate", key=KEY, scope="r1", options=None, before="Valor: ", after=".\n"
):
    text = before + value + after
    res = apply_operator(
        text,
        [(label, len(before), len(before) + len(value))],
        mode,
        key,
        scope=scope,
        options=options,
    )
    (r,) = res.replacements
    assert res.text[: r.new_start] == before and res.text[r.new_end :] == after
    return res.text[r.new_start : r.new_end]


# --- tag, mask, redact ---------------------------------------------------------------

TEXT = "Nombre: Ana. Apellidos: Ruiz Gil. Remitido por Ana y por Luis."


def spans_of(text, *pairs):
    """[(label, start, end)] of each (label, value), searching left to right."""
    out, pos = [], 0
    for label, value in pairs:
        start = text.index(value, pos)
        out.append((label, start, start + len(value)))
        pos = start + len(value)
    return out


SPANS = spans_of(
    TEXT,
    ("NOMBRE_SUJETO_ASISTENCIA", "Ana"),
    ("NOMBRE_SUJETO_ASISTENCIA", "Ruiz Gil"),
    ("NOMBRE_PERSONAL_SANITARIO", "Ana"),
    ("NOMBRE_PERSONAL_SANITARIO", "Luis"),
)


@pytest.mark.parametrize(
    "mode,options,expected",
    [
        (
            "tag",
            None,
            "Nombre: [NOMBRE_SUJETO_ASISTENCIA]. Apellidos: [NOMBRE_SUJETO_ASISTENCIA]. "
            "Remitido por [NOMBRE_PERSONAL_SANITARIO] y por [NOMBRE_PERSONAL_SANITARIO].",
        ),
        (
            "tag",
            DeidOptions(tag_numbering=True),
            "Nombre: [NOMBRE_SUJETO_ASISTENCIA-1]. Apellidos: [NOMBRE_SUJETO_ASISTENCIA-2]. "
            "Remitido por [NOMBRE_PERSONAL_SANITARIO-1] y por [NOMBRE_PERSONAL_SANITARIO-2].",
        ),
        (
            "tag",
            DeidOptions(tag_names={"NOMBRE_SUJETO_ASISTENCIA": "PACIENTE"}),
            "Nombre: [PACIENTE]. Apellidos: [PACIENTE]. Remitido por [NOMBRE_PERSONAL_SANITARIO] "
            "y por [NOMBRE_PERSONAL_SANITARIO].",
        ),
        ("mask", None, "Nombre: ***. Apellidos: **** ***. Remitido por *** y por ****."),
        (
            "mask",
            DeidOptions(mask_char="#"),
            "Nombre: ###. Apellidos: #### ###. Remitido por ### y por ####.",
        ),
        ("redact", None, "Nombre: . Apellidos: . Remitido por  y por ."),
    ],
)
def test_tag_mask_redact(mode, options, expected):
    res = apply_operator(TEXT, SPANS, mode, options=options)
    assert res.text == expected
    for (label, start, end), r in zip(SPANS, res.replacements):
        assert (r.label, r.start, r.end) == (label, start, end)
        new = res.text[r.new_start : r.new_end]
        if mode == "mask":
            assert (
                len(new) == end - start
                and " " not in new.replace(" ", "")
                and set(new) <= {"*", "#", " "}
            )
        if mode == "redact":
            assert new == ""


def test_numbering_same_value_same_number():
    text = "Ana vio a Luis; Ana llamó."
    spans = spans_of(text, *[("NOMBRE_SUJETO_ASISTENCIA", v) for v in ("Ana", "Luis", "Ana")])
    res = apply_operator(text, spans, "tag", options=DeidOptions(tag_numbering=True))
    assert (
        res.text == "[NOMBRE_SUJETO_ASISTENCIA-1] vio a [NOMBRE_SUJETO_ASISTENCIA-2]; "
        "[NOMBRE_SUJETO_ASISTENCIA-1] llamó."
    )


def test_mask_keeps_spaces_and_newlines():
    assert one("C/ Mayor,\n12", "CALLE", mode="mask") == "** ******\n**"


@pytest.mark.parametrize(
    "spans,error",
    [
        ([("FECHAS", 5, 3)], "outside"),
        ([("FECHAS", 0, 500)], "outside"),
        ([("FECHAS", 0, 5), ("FECHAS", 3, 8)], "overlaps"),
    ],
)
def test_bad_spans(spans, error):
    with pytest.raises(ValueError, match=error):
        apply_operator(TEXT, spans, "mask")


def test_surrogate_needs_key_and_known_mode():
    with pytest.raises(ValueError, match="needs a key"):
        apply_operator(TEXT, SPANS, "surrogate")
    with pytest.raises(ValueError, match="unknown mode"):
        apply_operator(TEXT, SPANS, "encrypt")
    with pytest.raises(DeidKeyError, match="too short"):
        apply_operator(TEXT, SPANS, "surrogate", key=b"short")


# --- surrogates per PHI shape ------------------------------------------------------------


@pytest.mark.parametrize(
    "value,pattern",
    [
        ("14/03/2001", r"\d\d/\d\d/\d{4}"),
        ("4-6-2003", r"\d{1,2}-\d{1,2}-\d{4}"),
        ("10-06-03", r"\d\d-\d\d-\d\d"),
        ("2003-06-10", r"\d{4}-\d\d-\d\d"),
        (
            "23 de octubre de 1972",
            r"\d{1,2} de (enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|"
            r"octubre|noviembre|diciembre) de \d{4}",
        ),
        (
            "octubre de 2005",
            r"(enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|"
            r"diciembre) de \d{4}",
        ),
        ("Octubre de 2002", r"[A-Z][a-z]+ de \d{4}"),
        ("OCTUBRE 2002", r"[A-Z]+ \d{4}"),
        ("12-mar-2005", r"\d\d-(ene|feb|mar|abr|may|jun|jul|ago|sep|oct|nov|dic)-\d{4}"),
        ("1998", r"\d{4}"),
        ("2.003", r"\d\.\d{3}"),
        ("31/02/2001", r"\d\d/\d\d/\d{4}"),
        ("05/2003", r"\d\d/\d{4}"),
    ],
)
def test_date_surrogates_keep_format(value, pattern):
    new = one(value, "FECHAS")
    assert new != value
    assert re.fullmatch(pattern, new), shape(new)


@pytest.mark.parametrize(
    "value,offset,expected",
    [
        ("14/03/2001", 45, "28/04/2001"),
        ("14/03/2001", -45, "28/01/2001"),
        ("4-6-2003", 45, "19-7-2003"),
        ("10-06-03", 45, "25-07-03"),
        ("23 de octubre de 1972", 45, "7 de diciembre de 1972"),
        ("octubre de 2005", 45, "noviembre de 2005"),
        ("1998", 45, "1999"),
        ("1998", -400, "1997"),
        ("2.003", 800, "2.005"),
        ("31/02/2001", 1, "01/03/2001"),  # clamped to 28/02, then shifted
        ("29/02/2001", 0, "28/02/2001"),
        ("Oct. 2002", 45, "Nov. 2002"),
        ("hace unos días", 45, None),
        ("15.08.2005", 45, "29.09.2005"),  # dotted dates: `08.200` is not a thousands group
        ("3.12.2010", 45, "17.01.2011"),  # field widths of the original kept
        ("5.6.2.003", 45, "20.7.2.003"),  # `2.003` read as the year, never an exception
    ],
)
def test_shift_date_table(value, offset, expected):
    assert shift_date(value, offset) == expected


def test_one_date_offset_per_report_and_per_patient():
    text = "Ingreso 01/03/2004, alta 11/03/2004, control 01/04/2004."
    spans = [("FECHAS", m.start(), m.end()) for m in re.finditer(r"\d\d/\d\d/\d{4}", text)]
    import datetime as dt

    def days(t):
        return [
            dt.datetime.strptime(d, "%d/%m/%Y").date() for d in re.findall(r"\d\d/\d\d/\d{4}", t)
        ]

    for kwargs in ({"scope": "report-1"}, {"scope": "patient:7", "patient_scope": True}):
        new = apply_operator(text, spans, "surrogate", KEY, **kwargs).text
        old_d, new_d = days(text), days(new)
        offsets = {(n - o).days for o, n in zip(old_d, new_d)}
        assert len(offsets) == 1 and abs(offsets.pop()) >= 32


@pytest.mark.parametrize(
    "value,label",
    [
        ("5192837", "ID_SUJETO_ASISTENCIA"),
        ("99999999/99", "ID_SUJETO_ASISTENCIA"),
        ("28 12345678 90", "ID_ASEGURAMIENTO"),
        ("28-31-23567", "ID_TITULACION_PERSONAL_SANITARIO"),
        ("AB-1234-cd", "IDENTIF_DISPOSITIVOS_NRSERIE"),
        ("915 37 48 21", "NUMERO_TELEFONO"),
        ("+34 600.123.456", "NUMERO_TELEFONO"),
        ("945 123 456", "NUMERO_FAX"),
        ("E-28029", "TERRITORIO"),
    ],
)
def test_id_surrogates_keep_shape(value, label):
    new = one(value, label)
    assert new != value and shape(new) == shape(value)


def test_phone_stays_spanish_looking():
    assert one("915 37 48 21", "NUMERO_TELEFONO")[0] in "6789"


@pytest.mark.parametrize("scope", [f"r{i}" for i in range(20)])
def test_postal_code_plausible(scope):
    new = one("28029", "TERRITORIO", scope=scope)
    assert re.fullmatch(r"\d{5}", new) and 1000 <= int(new) <= 52999 and new != "28029"


@pytest.mark.parametrize(
    "value,pattern",
    [
        ("lalbarran@example.com", r"[\w.\-]+@[\w\-]+(\.[\w\-]+)+"),
        ("ana.ruiz@gmail.com", r"[\w.\-]+@(gmail|hotmail|yahoo)\.[a-z.]+"),
        ("http://www.hospital-ejemplo.es/", r"https?://[\w.\-]+/?"),
        ("www.clinica.es", r"www\.[\w.\-]+"),
        ("192.168.1.23", r"\d+\.\d+\.\d+\.\d+"),
    ],
)
def test_contact_surrogates(value, pattern):
    label = {"@": "CORREO_ELECTRONICO", "w": "URL_WEB", "h": "URL_WEB", "1": "DIREC_PROT_INTERNET"}
    lab = "CORREO_ELECTRONICO" if "@" in value else label[value[0]]
    new = one(value, lab)
    assert new != value and re.fullmatch(pattern, new)


@pytest.mark.parametrize(
    "value,label,pattern",
    [
        ("C/ Mayor, 12, 3 B", "CALLE", r"C/ [^,\d]+, \d\d, \d [A-Z]"),
        ("Avda. de la Constitución 5", "CALLE", r"Avda\. [^\d]+ \d"),
        ("CALLE MAYOR, 12", "CALLE", r"CALLE [^a-z\d]+, \d\d"),
        ("Madrid", "TERRITORIO", r"[A-ZÁÉÍÓÚÑ].*"),
        ("MADRID", "TERRITORIO", r"[^a-z]+"),
        ("España", "PAIS", r"[A-ZÁÉÍÓÚ].+"),
        ("Hospital Clínico San Carlos", "HOSPITAL", r"[A-ZÁÉÍÓÚÀ].+"),
        ("Centro de Salud Las Fuentes", "CENTRO_SALUD", r"Centro de Salud .+"),
        ("Universidad de Granada", "INSTITUCION", r".+"),
        ("enfermera", "PROFESION", r"[a-záéíóúñ ]+"),
    ],
)
def test_place_and_other_surrogates(value, label, pattern):
    new = one(value, label)
    assert lookup_key(new) != lookup_key(value) and re.fullmatch(pattern, new), shape(new)


@pytest.mark.parametrize(
    "value,expected",
    [
        ("16 años", "16 años"),
        ("89 años", "89 años"),
        ("90 años", "90 años o más"),
        ("103 años", "90 años o más"),
        ("noventa y dos años", "90 años o más"),
        ("3 meses", "3 meses"),
    ],
)
def test_ages(value, expected):
    assert one(value, "EDAD_SUJETO_ASISTENCIA") == expected


def test_age_and_sex_options():
    opts = DeidOptions(keep_sex=False, keep_age=False, age_aggregate="mayor de 89")
    assert one("M", "SEXO_SUJETO_ASISTENCIA", options=opts) == "[SEXO_SUJETO_ASISTENCIA]"
    assert one("40 años", "EDAD_SUJETO_ASISTENCIA", options=opts) == "[EDAD_SUJETO_ASISTENCIA]"
    assert one("M", "SEXO_SUJETO_ASISTENCIA") == "M"
    assert (
        one("95 años", "EDAD_SUJETO_ASISTENCIA", options=DeidOptions(age_aggregate="mayor de 89"))
        == "mayor de 89"
    )


# --- names -----------------------------------------------------------------------------


def _ctx(scope="r1", key=KEY, phi=()):
    return Context(Keyed(key, scope), load_gazetteer(), DeidOptions(), phi)


@pytest.mark.parametrize(
    "value,pattern",
    [
        ("Ana", r"[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+"),
        ("Ruiz Gil", r"\S+ \S+"),
        ("Luis Albarrán Tejero", r"\S+ \S+ \S+"),
        ("J. García", r"[A-Z]\. \S+"),
        ("JUAN GARCÍA", r"[^a-z]+ [^a-z]+"),
        ("María de la Fuente", r"\S+ de la \S+"),
        ("Pérez-Llorca", r"\S+-\S+"),
        ("Mª José", r"[A-Z]ª \S+"),
    ],
)
def test_name_shapes(value, pattern):
    new = one(value, "NOMBRE_SUJETO_ASISTENCIA")
    assert re.fullmatch(pattern, new), shape(new)
    assert all(
        lookup_key(a) != lookup_key(b)
        for a, b in zip(re.findall(r"\w{2,}", new), re.findall(r"\w{2,}", value))
        if lookup_key(b) not in ("de", "la")
    )


@pytest.mark.parametrize(
    "first,gender",
    [("María", "F"), ("Carmen", "F"), ("Lucía", "F"), ("Juan", "M"), ("José", "M"), ("Pedro", "M")],
)
def test_first_names_keep_gender(first, gender):
    ctx = _ctx()
    new = names.name_surrogate(first, ctx)
    assert names.is_first_name(new, ctx.gaz) and names.gender(new, ctx.gaz) == gender


def test_name_tokens_consistent_inside_a_report():
    text = "Paciente Juan García López. Visto por el Sr. García. Firma: J. García"
    spans = spans_of(
        text,
        *[("NOMBRE_SUJETO_ASISTENCIA", v) for v in ("Juan García López", "García", "J. García")],
    )
    res = apply_operator(text, spans, "surrogate", KEY, scope="r1")
    full, short, initial = (res.text[r.new_start : r.new_end] for r in res.replacements)
    first, surname1, surname2 = full.split(" ")
    assert short == surname1  # "García" -> the same surrogate everywhere
    assert initial == f"{first[0]}. {surname1}"  # the initial follows the first name's letter
    assert "Sr. " + short in res.text and "García" not in res.text and "Juan" not in res.text


def test_surrogate_never_reproduces_other_phi():
    # many scopes: no surrogate equals its original or another PHI string of the text
    text = "Ana Ruiz y Eva Gil, de Madrid y Toledo."
    spans = spans_of(
        text,
        ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz"),
        ("FAMILIARES_SUJETO_ASISTENCIA", "Eva Gil"),
        ("TERRITORIO", "Madrid"),
        ("TERRITORIO", "Toledo"),
    )
    originals = {lookup_key(text[s:e]) for _, s, e in spans} | {"ana", "ruiz", "eva", "gil"}
    for i in range(40):
        res = apply_operator(text, spans, "surrogate", KEY, scope=f"s{i}")
        for r in res.replacements:
            new = res.text[r.new_start : r.new_end]
            assert lookup_key(new) not in originals
            assert not (
                set(lookup_key(new).split()) & {"ana", "ruiz", "eva", "gil", "madrid", "toledo"}
            )


@pytest.mark.parametrize(
    "value,expected_gender_word", [("madre", "F"), ("hermano", "M"), ("hijas", "F"), ("tíos", "M")]
)
def test_kinship_kept_by_default_swapped_same_gender_and_number_on_request(
    value, expected_gender_word
):
    assert one(value, "FAMILIARES_SUJETO_ASISTENCIA") == value  # keep_kinship defaults to True
    new = one(value, "FAMILIARES_SUJETO_ASISTENCIA", options=DeidOptions(keep_kinship=False))
    kin = names.KIN
    assert new != value and lookup_key(new) in kin
    assert kin[lookup_key(new)][:2] == kin[lookup_key(value)][:2]
    assert (
        one(value, "FAMILIARES_SUJETO_ASISTENCIA", options=DeidOptions(keep_kinship=True)) == value
    )


# --- keys and determinism --------------------------------------------------------------

SAMPLE = (
    "Nombre: Ana Ruiz Gil. NHC: 5192837. Fecha: 23/10/2001. Domicilio: C/ Mayor, 12. "
    "CP: 28029. Correo: ana@example.com. Hospital Clínico San Carlos."
)
SAMPLE_SPANS = spans_of(
    SAMPLE,
    ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil"),
    ("ID_SUJETO_ASISTENCIA", "5192837"),
    ("FECHAS", "23/10/2001"),
    ("CALLE", "C/ Mayor, 12"),
    ("TERRITORIO", "28029"),
    ("CORREO_ELECTRONICO", "ana@example.com"),
    ("HOSPITAL", "Hospital Clínico San Carlos"),
)


def test_sample_spans_are_right():
    assert [SAMPLE[s:e] for _, s, e in SAMPLE_SPANS] == [
        "Ana Ruiz Gil",
        "5192837",
        "23/10/2001",
        "C/ Mayor, 12",
        "28029",
        "ana@example.com",
        "Hospital Clínico San Carlos",
    ]


def test_same_key_same_output_other_key_other_output():
    a = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", KEY, scope="r1").text
    b = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", KEY, scope="r1").text
    c = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", OTHER_KEY, scope="r1").text
    d = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", KEY, scope="r2").text
    assert a == b
    assert a != c and a != d
    ra = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", KEY, scope="r1").replacements
    rc = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", OTHER_KEY, scope="r1").replacements
    differing = sum(
        a[x.new_start : x.new_end] != c[y.new_start : y.new_end] for x, y in zip(ra, rc)
    )
    assert differing >= len(SAMPLE_SPANS) - 1


def test_order_does_not_matter():
    """A value's surrogate does not depend on what came before it in the report."""
    text1 = "NHC: 5192837. Nombre: Ana."
    text2 = "Nombre: Ana. NHC: 5192837."
    r1 = apply_operator(
        text1,
        spans_of(text1, ("ID_SUJETO_ASISTENCIA", "5192837"), ("NOMBRE_SUJETO_ASISTENCIA", "Ana")),
        "surrogate",
        KEY,
        scope="x",
    )
    r2 = apply_operator(
        text2,
        spans_of(text2, ("NOMBRE_SUJETO_ASISTENCIA", "Ana"), ("ID_SUJETO_ASISTENCIA", "5192837")),
        "surrogate",
        KEY,
        scope="x",
    )
    assert set(re.findall(r"\w+", r1.text)) == set(re.findall(r"\w+", r2.text))


def test_patient_scope_consistent_across_reports():
    r1 = "Nombre: Ana Ruiz. Ingreso: 01/03/2004."
    r2 = "Control de Ana Ruiz el 01/03/2004 y el 15/03/2004."
    s1 = spans_of(r1, ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz"), ("FECHAS", "01/03/2004"))
    s2 = spans_of(
        r2,
        ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz"),
        ("FECHAS", "01/03/2004"),
        ("FECHAS", "15/03/2004"),
    )
    a = apply_operator(r1, s1, "surrogate", KEY, scope="patient:P1", patient_scope=True)
    b = apply_operator(r2, s2, "surrogate", KEY, scope="patient:P1", patient_scope=True)
    c = apply_operator(r2, s2, "surrogate", KEY, scope="patient:P2", patient_scope=True)
    get = lambda res, i: res.text[res.replacements[i].new_start : res.replacements[i].new_end]  # noqa: E731
    assert get(a, 0) == get(b, 0) and get(a, 1) == get(b, 1)
    assert (get(a, 0), get(a, 1)) != (get(c, 0), get(c, 1))


def test_api_on_text_and_doc(rule_nlp):
    text = "Datos del paciente.\nNombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n"
    doc = rule_nlp(text)
    assert [e.label_ for e in doc.ents] == [
        "NOMBRE_SUJETO_ASISTENCIA",
        "NOMBRE_SUJETO_ASISTENCIA",
        "ID_SUJETO_ASISTENCIA",
    ]
    import meddocan_deid

    a = meddocan_deid.deidentify(doc, mode="surrogate", key=KEY, scope="r1")
    b = meddocan_deid.deidentify(text, mode="surrogate", key=KEY, scope="r1", nlp=rule_nlp)
    assert a == b
    assert "Ana" not in a.text and "Ruiz" not in a.text and "5192837" not in a.text
    assert meddocan_deid.deidentify(doc, mode="tag").text.count("[NOMBRE_SUJETO_ASISTENCIA]") == 2
    text_out, repl = meddocan_deid.deidentify(doc, mode="redact")
    assert text_out == "Datos del paciente.\nNombre: .\nApellidos: .\nNHC: .\n" and len(repl) == 3
    with pytest.raises(TypeError):
        deidentify(b"bytes", mode="tag", nlp=rule_nlp)


@pytest.mark.parametrize(
    "content,env,ok",
    [
        (b"0123456789abcdef0123\n", None, True),
        (b"short\n", None, False),
        (None, "env-key-0123456789abcdef", True),
        (None, None, None),
    ],
)
def test_load_key(tmp_path, content, env, ok):
    path = None
    if content is not None:
        path = tmp_path / "key"
        path.write_bytes(content)
    environ = {"MEDDOCAN_DEID_KEY": env} if env else {}
    if ok is None:
        assert load_key(path, environ) is None
    elif ok:
        key = load_key(path, environ)
        assert key and not key.endswith(b"\n")
    else:
        with pytest.raises(DeidKeyError) as err:
            load_key(path, environ)
        assert "short" not in str(err.value).split(":")[-1] or "too short" in str(err.value)


def test_faker_only_without_gazetteer(tmp_path):
    """An empty gazetteer folder: every surrogate still comes out (Faker es_ES)."""
    opts = DeidOptions(gazetteer=tmp_path)
    res = apply_operator(SAMPLE, SAMPLE_SPANS, "surrogate", KEY, scope="r1", options=opts)
    for (_label, s, e), r in zip(SAMPLE_SPANS, res.replacements):
        assert res.text[r.new_start : r.new_end] and lookup_key(
            res.text[r.new_start : r.new_end]
        ) != lookup_key(SAMPLE[s:e])


def test_gazetteer_is_used(tmp_path):
    """The gazetteer gives street names and the spelling of towns; a hospital is made of its
    kind's head and a drawn rest, never another hospital of the list."""
    from meddocan_deid.deid.surrogates.places import geo

    (tmp_path / "Hospitales (Hospitals).txt").write_text(
        "HOSPITAL INVENTADO DEL NORTE\n", encoding="utf-8"
    )
    (tmp_path / "Direcciones (Addresses).txt").write_text(
        "CALLE INVENTADA DEL NORTE, 3\n", encoding="utf-8"
    )
    # every town of the tables, spelled with its first `a` accented:
    # the surrogate takes this spelling
    spelled = {t.replace("a", "á", 1) for towns in geo().towns.values() for t in towns if "a" in t}
    (tmp_path / "Municipios (Cities and towns).txt").write_text(
        "\n".join(sorted(spelled)) + "\n", encoding="utf-8"
    )
    opts = DeidOptions(gazetteer=tmp_path)
    hospital = one("Hospital Clínico San Carlos", "HOSPITAL", options=opts)
    assert hospital.startswith("Hospital Clínico ") and "Inventado" not in hospital
    assert re.fullmatch(r"C/ Inventada del Norte, \d\d", one("C/ Mayor, 12", "CALLE", options=opts))
    assert one("Tolosa", "TERRITORIO", options=opts) in spelled


def test_surrogates_never_write_random_letters_outside_meddocan_labels():
    # a label a policy or a custom pipeline adds: words become the tag, a code keeps its shape
    text = "Proyecto Albatros, expediente 77-AB-2231."
    spans = [("MI_ETIQUETA", 0, 17), ("MI_ETIQUETA", 30, 40)]
    out = apply_operator(text, spans, "surrogate", KEY, scope="r1")
    words, code = (out.text[r.new_start : r.new_end] for r in out.replacements)
    assert words == "[MI_ETIQUETA]"
    assert (
        code != "77-AB-2231"
        and len(code) == len("77-AB-2231")
        and code[2] == "-"
        and code[5] == "-"
    )
