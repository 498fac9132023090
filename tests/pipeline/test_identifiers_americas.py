"""The identifiers of the Americas in the identifiers component (rows of
configs/patterns/identifiers.jsonl with a `country`): each kind after its key in the
country's words, without a key in the shapes its check validates; a value in such a shape
whose check fails is tagged only after a key, and without one is a rejected look-alike that
`code_shapes` leaves alone. Every value is invented; check characters computed for the test."""

from pathlib import Path

import pytest
import srsly
from spacy.tokens import Span
from stdnum import luhn
from stdnum.ar import cuit
from stdnum.cl import rut
from stdnum.mx import curp

from meddocan_deid.id_checks.weighted_keys import uy_ci_key
from meddocan_deid.pipeline.identifiers import validate_patterns
from meddocan_deid.pipeline.patterns import read_identifier_patterns
from meddocan_deid.pipeline.tokenizer import blank_pipeline

ROOT = Path(__file__).parents[2]
PATTERNS = ROOT / "configs" / "patterns" / "identifiers.jsonl"
CODE_SHAPES = list(srsly.read_jsonl(ROOT / "configs" / "patterns" / "code_shapes.jsonl"))

CURP_BODY = "SAPL790412HJCNRS0"
CURP = CURP_BODY + curp.calc_check_digit(CURP_BODY)
BAD_CURP = CURP[:-1] + str((int(CURP[-1]) + 3) % 10)
RUN = "15827364" + rut.calc_check_digit("15827364")
BAD_RUN_CHECK = next(c for c in "0123456789K" if c != RUN[-1])
CUIT = "27" + "31456789" + cuit.calc_check_digit("2731456789")
NSS = "3198765432" + luhn.calc_check_digit("3198765432")
UY_CI = "4512837" + uy_ci_key("4512837")


def make_nlp(country=None, code_shapes=False):
    nlp = blank_pipeline()
    nlp.add_pipe("meddocan_identifiers", config={"country": country}).initialize(
        patterns=read_identifier_patterns(PATTERNS)
    )
    if code_shapes:
        nlp.add_pipe("meddocan_code_shapes").initialize(patterns=CODE_SHAPES)
    return nlp


@pytest.fixture(scope="module")
def nlp():
    return make_nlp()


def found(nlp, text):
    doc = nlp(text)
    return [(s.text, s.label_, s.kb_id_) for s in doc.spans["identifiers"]]


def dotted(number: str) -> str:
    return f"{int(number):,}".replace(",", ".")


@pytest.mark.parametrize(
    "text,value,label,kind",
    [
        # Mexico: CURP, RFC, NSS (after its key), ISSSTE/IMSS affiliation
        (f"Paciente con CURP: {CURP}, derechohabiente.", CURP, "ID_SUJETO_ASISTENCIA", "curp"),
        (
            f"Se registra con la clave {CURP} en el expediente.",
            CURP,
            "ID_SUJETO_ASISTENCIA",
            "curp",
        ),
        (f"curp {CURP.lower()}.", CURP.lower(), "ID_SUJETO_ASISTENCIA", "curp"),
        ("RFC: GODE 561231 GR8.", "GODE 561231 GR8", "ID_SUJETO_ASISTENCIA", "rfc"),
        ("Factura a GODE561231GR8 por el estudio.", "GODE561231GR8", "ID_SUJETO_ASISTENCIA", "rfc"),
        (f"NSS: {NSS}.", NSS, "ID_ASEGURAMIENTO", "nss_mx"),
        (
            "Nº de afiliación al ISSSTE: 4471092381.",
            "4471092381",
            "ID_ASEGURAMIENTO",
            "affiliation",
        ),
        (
            "Nº de asegurado de EsSalud: 0492659066.",
            "0492659066",
            "ID_ASEGURAMIENTO",
            "affiliation",
        ),
        # Chile, Argentina, Uruguay
        (f"RUN: {RUN[:-1]}-{RUN[-1]}.", f"{RUN[:-1]}-{RUN[-1]}", "ID_SUJETO_ASISTENCIA", "run_cl"),
        (
            f"En la admisión consta {dotted(RUN[:-1])}-{RUN[-1]} como documento.",
            f"{dotted(RUN[:-1])}-{RUN[-1]}",
            "ID_SUJETO_ASISTENCIA",
            "run_cl",
        ),
        ("DNI: 7.123.456.", "7.123.456", "ID_SUJETO_ASISTENCIA", "dni_ar"),
        (
            f"CUIL {CUIT[:2]}-{CUIT[2:10]}-{CUIT[10]}.",
            f"{CUIT[:2]}-{CUIT[2:10]}-{CUIT[10]}",
            "ID_SUJETO_ASISTENCIA",
            "cuit",
        ),
        (
            f"Comprobante {CUIT[:2]}-{CUIT[2:10]}-{CUIT[10]} adjunto.",
            f"{CUIT[:2]}-{CUIT[2:10]}-{CUIT[10]}",
            "ID_SUJETO_ASISTENCIA",
            "cuit",
        ),
        (
            f"C.I. {UY_CI[0]}.{UY_CI[1:4]}.{UY_CI[4:7]}-{UY_CI[7]}.",
            f"{UY_CI[0]}.{UY_CI[1:4]}.{UY_CI[4:7]}-{UY_CI[7]}",
            "ID_SUJETO_ASISTENCIA",
            "ci_uy",
        ),
        ("RUT: 21-100342-001-7.", "21-100342-001-7", "ID_SUJETO_ASISTENCIA", "rut_uy"),
        # Colombia, Peru, Ecuador, the Dominican Republic, Venezuela, Cuba, Costa Rica
        ("C.C.: 1.023.456.789.", "1.023.456.789", "ID_SUJETO_ASISTENCIA", "cc_co"),
        ("Proveedor 213.123.432-1 facturado.", "213.123.432-1", "ID_SUJETO_ASISTENCIA", "nit_co"),
        ("DNI: 10117410-2.", "10117410-2", "ID_SUJETO_ASISTENCIA", "dni_pe"),
        ("RUC: 20512333797.", "20512333797", "ID_SUJETO_ASISTENCIA", "ruc_pe"),
        ("Cédula: 1714307103.", "1714307103", "ID_SUJETO_ASISTENCIA", "ci_ec"),
        ("Documento 171430710-3 vigente.", "171430710-3", "ID_SUJETO_ASISTENCIA", "ci_ec"),
        (
            "Comprobante 001-1391820-5 en el archivo.",
            "001-1391820-5",
            "ID_SUJETO_ASISTENCIA",
            "cedula_do",
        ),
        (
            "Firma con V-12.345.678 el consentimiento.",
            "V-12.345.678",
            "ID_SUJETO_ASISTENCIA",
            "ci_ve",
        ),
        ("RIF: V-11470283-4.", "V-11470283-4", "ID_SUJETO_ASISTENCIA", "rif_ve"),
        ("Carné de identidad: 91021027775.", "91021027775", "ID_SUJETO_ASISTENCIA", "ni_cu"),
        ("Cédula: 3-0455-0175.", "3-0455-0175", "ID_SUJETO_ASISTENCIA", "cedula_cr"),
        ("DPI: 2456 78901 0101.", "2456 78901 0101", "ID_SUJETO_ASISTENCIA", "cedula_other"),
        ("DUI: 01234567-8.", "01234567-8", "ID_SUJETO_ASISTENCIA", "cedula_other"),
        # the US
        ("SSN 536-90-4399 en la hoja.", "536-90-4399", "ID_SUJETO_ASISTENCIA", "ssn"),
        ("Sin clave: 536-90-4399 en la hoja.", "536-90-4399", "ID_SUJETO_ASISTENCIA", "ssn"),
        ("Medicare MBI: 1EG4-TE5-MK73.", "1EG4-TE5-MK73", "ID_ASEGURAMIENTO", "mbi"),
        ("Tarjeta 1EG4TE5MK73 en el sobre.", "1EG4TE5MK73", "ID_ASEGURAMIENTO", "mbi"),
        ("Medicaid # NY1234567B vigente.", "NY1234567B", "ID_ASEGURAMIENTO", "medicaid"),
        # plans and records
        (
            "Obra social OSDE, nº de afiliado 61-123456-01.",
            "61-123456-01",
            "NUMERO_BENEF_PLAN_SALUD",
            "plan_member",
        ),
        (
            "Isapre Colmena, nº de afiliado 4412345.",
            "4412345",
            "NUMERO_BENEF_PLAN_SALUD",
            "plan_member",
        ),
    ],
)
def test_kinds_of_the_americas(nlp, text, value, label, kind):
    assert (value, label, kind) in found(nlp, text)


@pytest.mark.parametrize(
    "text,value",
    [("Expediente: 4329482.", "4329482"), ("Ficha clínica nº 9108046.", "9108046")],
)
def test_record_keys_are_the_wording_of_the_americas(text, value):
    """`expediente` and `ficha` name the patient's record in a report of the Americas; a
    Spanish report (the country a report gets when nothing else shows) keeps them for its own
    rules (`expediente de traslado`: an episode)."""
    record = (value, "ID_SUJETO_ASISTENCIA", "record_americas")
    assert record in found(make_nlp(country="CL"), text)
    assert record not in found(make_nlp(country="ES"), text)


@pytest.mark.parametrize(
    "key,value",
    [
        ("CURP: ", BAD_CURP),
        ("RUN: ", f"{RUN[:-1]}-{BAD_RUN_CHECK}"),
        ("CUIL: ", f"{CUIT[:2]}-{CUIT[2:10]}-{(int(CUIT[10]) + 1) % 10}"),
        ("SSN: ", "666-12-3456"),
        ("RIF: ", "V-11470283-3"),
    ],
)
def test_a_failing_check_is_tagged_after_its_key_only(key, value):
    nlp = make_nlp(code_shapes=True)
    keyed = nlp(f"{key}{value}.")
    assert [s.text for s in keyed.spans["identifiers"]] == [value]
    bare = nlp(f"El lector devuelve la secuencia {value} sin validar.")
    assert len(bare.spans["identifiers"]) == 0 and bare.ents == ()
    assert [s.text for s in bare.spans["identifier_rejects"]] == [value]
    assert len(bare.spans["code_shapes"]) == 0


def test_code_shapes_still_tags_a_code_no_kind_rejects():
    nlp = make_nlp(code_shapes=True)
    doc = nlp("Consta el código ABCD1234XYZ en el sobre.")
    assert len(doc.spans["identifier_rejects"]) == 0
    assert [e.text for e in doc.ents] == ["ABCD1234XYZ"]


def test_an_entity_inside_a_rejected_look_alike_is_dropped():
    nlp = make_nlp()
    text = f"El lector devuelve la secuencia {BAD_CURP} sin validar."
    doc = nlp.make_doc(text)
    start = text.index(BAD_CURP)
    doc.ents = [doc.char_span(start, start + len(BAD_CURP), label="OTRO_NUMERO_IDENTIF")]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert doc.ents == ()
    # an entity of a header rule (read after its field key) keeps its span
    doc = nlp.make_doc(text)
    rule = doc.char_span(start, start + len(BAD_CURP), label="OTRO_NUMERO_IDENTIF")
    doc.ents = [rule]
    doc.spans["rule_entities"] = [Span(doc, rule.start, rule.end, label=rule.label)]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [e.text for e in doc.ents] == [BAD_CURP]
    # an entity that runs on past it keeps the rest only where it still looks like one
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(start, len(text) - 1, label="OTRO_NUMERO_IDENTIF")]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert doc.ents == ()  # `sin validar`: no digit left for a number label
    doc = nlp.make_doc(text)
    doc.ents = [doc.char_span(start - 10, start + len(BAD_CURP), label="TERRITORIO")]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [e.text for e in doc.ents] == ["secuencia"]


def test_a_longer_code_holds_no_identifier():
    # `223-5624015-2` holds a valid RUT shape `5624015-2`; `852.924.051-6` a Spanish phone
    nlp = make_nlp()
    assert found(nlp, "Secuencia 223-5624015-2 del equipo.") == []
    assert all(kind != "phone_es" for *_, kind in found(nlp, "Código 852.924.051-6 aquí."))


def test_the_documents_country_decides_a_value_two_kinds_read():
    text = "Nº de afiliado: 123456789."
    assert found(make_nlp(), text) == [("123456789", "ID_ASEGURAMIENTO", "nass")]
    assert found(make_nlp("AR"), text) == [("123456789", "NUMERO_BENEF_PLAN_SALUD", "plan_member")]


def test_a_kind_whose_check_passes_wins_a_tie():
    # `C.I.` is the key of Chile's RUN, Uruguay's CI and others: the valid one wins
    text = f"C.I. {UY_CI[0]}.{UY_CI[1:4]}.{UY_CI[4:7]}-{UY_CI[7]}."
    assert found(make_nlp(), text)[0][2] == "ci_uy"
    assert found(make_nlp(), f"NSS: {NSS}.")[0][2] == "nss_mx"


@pytest.mark.parametrize(
    "row,message",
    [
        (
            {
                "kind": "x",
                "country": "Mexico",
                "label": "ID_SUJETO_ASISTENCIA",
                "keys": ["X"],
                "shapes": ["\\d+"],
            },
            "is not an ISO 3166 alpha-2 code",
        ),
        (
            {
                "kind": "x",
                "country": "MX",
                "label": "ID_SUJETO_ASISTENCIA",
                "keyless_shapes": ["\\d+"],
            },
            "'keyless_shapes' needs a 'validator'",
        ),
        (
            {"kind": "x", "label": "ID_SUJETO_ASISTENCIA", "keys": ["X"], "shapes": "\\d+"},
            "'shapes' must be a list of regexes",
        ),
        (
            {
                "kind": "x",
                "label": "ID_SUJETO_ASISTENCIA",
                "keys": ["X"],
                "shapes": ["\\d+"],
                "pattern": "\\d",
            },
            "'pattern' or 'shapes', not both",
        ),
        (
            {"kind": "x", "label": "ID_SUJETO_ASISTENCIA", "keys": ["X"], "shapes": ["(\\d+"]},
            "invalid regex in shapes\\[0\\]",
        ),
    ],
)
def test_a_bad_row_is_named(row, message):
    with pytest.raises(ValueError, match=message) as err:
        validate_patterns([row])
    assert "identifier pattern 1 (x)" in str(err.value)


def test_every_row_of_the_americas_has_a_country_and_a_note():
    rows = [r for r in read_identifier_patterns(PATTERNS) if r.get("country")]
    assert len(rows) >= 25
    assert all(r.get("note") for r in rows)
    assert {
        c for r in rows for c in ([r["country"]] if isinstance(r["country"], str) else r["country"])
    } >= {
        "MX",
        "AR",
        "CL",
        "CO",
        "PE",
        "EC",
        "DO",
        "UY",
        "VE",
        "CU",
        "CR",
        "US",
        "GT",
        "SV",
        "HN",
        "NI",
        "PA",
        "PY",
        "BO",
    }
