"""The identifiers component: identifier numbers and addresses in every section, with
check digits validated where they exist, and precedence over overlapping entities.
Every value here is invented (check letters computed for the test)."""

from pathlib import Path

import pytest
import spacy
import srsly

from meddocan_deid.pipeline.identifiers import VALIDATORS, validate_patterns
from meddocan_deid.pipeline.patterns import read_identifier_patterns
from meddocan_deid.pipeline.tokenizer import blank_pipeline

ROOT = Path(__file__).parents[2]
PATTERNS = ROOT / "configs" / "patterns" / "identifiers.jsonl"


def make_nlp():
    nlp = blank_pipeline()
    nlp.add_pipe("meddocan_identifiers").initialize(patterns=read_identifier_patterns(PATTERNS))
    return nlp


@pytest.fixture(scope="module")
def nlp():
    return make_nlp()


def found(nlp, text):
    doc = nlp(text)
    return [(s.text, s.label_) for s in doc.spans["identifiers"]]


VALID = [
    # DNI / NIF: dots, hyphen, space, no separator; valid letters
    ("Paciente con DNI 45873912K, sin alergias.", "45873912K", "ID_SUJETO_ASISTENCIA"),
    ("Aporta su NIF: 45.873.912-K.", "45.873.912-K", "ID_SUJETO_ASISTENCIA"),
    ("Documento 30291745 D en la carpeta.", "30291745 D", "ID_SUJETO_ASISTENCIA"),
    ("El acompañante (71830264-E) firma.", "71830264-E", "ID_SUJETO_ASISTENCIA"),
    ("D.N.I.: 12345678", "12345678", "ID_SUJETO_ASISTENCIA"),
    # NIE
    ("Con NIE Y7654321G reside en Lugo.", "Y7654321G", "ID_SUJETO_ASISTENCIA"),
    ("Tarjeta X-1234567-L vigente.", "X-1234567-L", "ID_SUJETO_ASISTENCIA"),
    # passport after its key
    ("Pasaporte nº PA4471920 expedido en Quito.", "PA4471920", "ID_SUJETO_ASISTENCIA"),
    # NASS / NUSS
    ("NUSS: 28/12345678/90 en vigor.", "28/12345678/90", "ID_ASEGURAMIENTO"),
    ("NASS 28 1234567890.", "28 1234567890", "ID_ASEGURAMIENTO"),
    ("Nº SS: 281234567890", "281234567890", "ID_ASEGURAMIENTO"),
    ("Consta su Nº Seg. Social: 28 1234567890.", "28 1234567890", "ID_ASEGURAMIENTO"),
    (
        "Su número de afiliación a la Seguridad Social es el 28 31457802 60.",
        "28 31457802 60",
        "ID_ASEGURAMIENTO",
    ),
    ("Afiliación 28/31457802/60 revisada.", "28/31457802/60", "ID_ASEGURAMIENTO"),
    # CIP / TSI / CIPA, the nhc- prefix left out, the CIP-SNS shape anywhere
    ("CIPA: nhc-150679.", "150679", "ID_SUJETO_ASISTENCIA"),
    ("Su TSI es MRGA740429123.", "MRGA740429123", "ID_SUJETO_ASISTENCIA"),
    ("Código BBCD123456789012 en la tarjeta.", "BBCD123456789012", "ID_SUJETO_ASISTENCIA"),
    # NHC and episodes after their keys, anywhere
    ("Ingresa con nhc-1234567 por disnea.", "1234567", "ID_SUJETO_ASISTENCIA"),
    ("Revisada la historia clínica nº 88231 se decide alta.", "88231", "ID_SUJETO_ASISTENCIA"),
    ("Nº de historia: HC-2291-B.", "HC-2291-B", "ID_SUJETO_ASISTENCIA"),
    ("Se abre el episodio 1520368541 en urgencias.", "1520368541", "ID_CONTACTO_ASISTENCIAL"),
    (
        "Se abre el proceso asistencial nº 4417092853 en planta.",
        "4417092853",
        "ID_CONTACTO_ASISTENCIAL",
    ),
    # IBAN (Spanish and foreign, grouped or not) and CCC
    (
        "Domicilia en ES64 2085 0103 9003 3014 7852 el pago.",
        "ES64 2085 0103 9003 3014 7852",
        "OTROS_SUJETO_ASISTENCIA",
    ),
    ("Cuenta ES6420850103900330147852.", "ES6420850103900330147852", "OTROS_SUJETO_ASISTENCIA"),
    (
        "Transferencia a DE44500105175407324931 hecha.",
        "DE44500105175407324931",
        "OTROS_SUJETO_ASISTENCIA",
    ),
    ("Nº de cuenta 2085-0103-90-0330147852.", "2085-0103-90-0330147852", "OTROS_SUJETO_ASISTENCIA"),
    (
        "Abona en 2085 0103 90 0330147852 la cuota.",
        "2085 0103 90 0330147852",
        "OTROS_SUJETO_ASISTENCIA",
    ),
    # Spanish phones anywhere, any grouping; foreign phones after a key; fax
    ("Llamar al 612345678 si empeora.", "612345678", "NUMERO_TELEFONO"),
    ("Su hija (612 34 56 78) avisa.", "612 34 56 78", "NUMERO_TELEFONO"),
    ("Centro de salud 91 234 56 78 de guardia.", "91 234 56 78", "NUMERO_TELEFONO"),
    ("Contactar en el +34 612-345-678 por la tarde.", "34 612-345-678", "NUMERO_TELEFONO"),
    ("Avisar al 0034 876 543 210 hoy.", "0034 876 543 210", "NUMERO_TELEFONO"),
    (
        "Teléfono de su hermano en Londres: 0044 20 7946 0958.",
        "0044 20 7946 0958",
        "NUMERO_TELEFONO",
    ),
    ("El móvil de su madre es el 0033 6 12 34 56 78.", "0033 6 12 34 56 78", "NUMERO_TELEFONO"),
    ("Telf.: 666415506, e-mail al final.", "666415506", "NUMERO_TELEFONO"),
    ("Tel 965 33 44 91 (secretaría)", "965 33 44 91", "NUMERO_TELEFONO"),
    ("Enviar por fax: 91 234 56 79.", "91 234 56 79", "NUMERO_FAX"),
    # a leading `+` or `(` stays out of the span, as in MEDDOCAN's gold
    ("Se remite el informe por fax al 91 234 56 79 del centro.", "91 234 56 79", "NUMERO_FAX"),
    ("Fax: (+34) 945 112 233", "34) 945 112 233", "NUMERO_FAX"),
    ("Móvil: (+34) 736 120 458", "34) 736 120 458", "NUMERO_TELEFONO"),
    ("Teléfono (Francia): +33 6 12 34 56 78", "33 6 12 34 56 78", "NUMERO_TELEFONO"),
    (
        "Su hermana, en Italia, pide ser avisada al +39 06 12345678.",
        "39 06 12345678",
        "NUMERO_TELEFONO",
    ),
    ("Avisar al 00212 612 345 678 en Tánger.", "00212 612 345 678", "NUMERO_TELEFONO"),
    # e-mail, URL, IP, MAC
    (
        "Escribe a lucia.ferrer@correo-ejemplo.es a diario.",
        "lucia.ferrer@correo-ejemplo.es",
        "CORREO_ELECTRONICO",
    ),
    ("E-mail.iñaki.sanz@ejemplo.org", "iñaki.sanz@ejemplo.org", "CORREO_ELECTRONICO"),
    ("Consultó www.foro-pacientes.es/hilo/42.", "www.foro-pacientes.es/hilo/42", "URL_WEB"),
    (
        "Ver https://ejemplo.org/informe?id=7.",
        "https://ejemplo.org/informe?id=7",
        "DIREC_PROT_INTERNET",
    ),
    (
        "Descarga de ftp://servidor.ejemplo.es/datos",
        "ftp://servidor.ejemplo.es/datos",
        "DIREC_PROT_INTERNET",
    ),
    (
        "El marcapasos emite desde 192.168.10.23 cada hora.",
        "192.168.10.23",
        "IDENTIF_DISPOSITIVOS_NRSERIE",
    ),
    (
        "Dirección fe80::1ff:fe23:4567:890a registrada.",
        "fe80::1ff:fe23:4567:890a",
        "IDENTIF_DISPOSITIVOS_NRSERIE",
    ),
    ("mac: 00:0a:95:9d:68:16", "00:0a:95:9d:68:16", "IDENTIF_DISPOSITIVOS_NRSERIE"),
    (
        "El lector se empareja con la MAC 00a0.c914.c829.",
        "00a0.c914.c829",
        "IDENTIF_DISPOSITIVOS_NRSERIE",
    ),
    ("Nº de serie: SN-44821-B del desfibrilador.", "SN-44821-B", "IDENTIF_DISPOSITIVOS_NRSERIE"),
    # plates (new, provincial) and VINs after their key
    ("Atropellado por el turismo 4821 BCD en el cruce.", "4821 BCD", "IDENTIF_VEHICULOS_NRSERIE"),
    ("La moto 7312-KLM se dio a la fuga.", "7312-KLM", "IDENTIF_VEHICULOS_NRSERIE"),
    (
        "Atropellado por el turismo de matrícula 4821BCD al salir.",
        "4821BCD",
        "IDENTIF_VEHICULOS_NRSERIE",
    ),
    ("Matrícula del coche 4821-BCD en el parte.", "4821-BCD", "IDENTIF_VEHICULOS_NRSERIE"),
    ("Un coche antiguo M-1234-AB lo golpeó.", "M-1234-AB", "IDENTIF_VEHICULOS_NRSERIE"),
    ("Nº bastidor: VF1RFD00653635032", "VF1RFD00653635032", "IDENTIF_VEHICULOS_NRSERIE"),
    # staff and other numbers after their keys
    ("Nº empleado: u000999", "u000999", "ID_EMPLEO_PERSONAL_SANITARIO"),
    ("NºSocio: 5547889955", "5547889955", "OTRO_NUMERO_IDENTIF"),
    # keys glued to their values, as the tokenizer does not split them
    ("NºSocio:5547889955", "5547889955", "OTRO_NUMERO_IDENTIF"),
    ("Contacto: Tfno.+34 612 345 678.", "34 612 345 678", "NUMERO_TELEFONO"),
    (
        "Identificador de huella dactilar FP537WXZ391 verificado.",
        "FP537WXZ391",
        "IDENTIF_BIOMETRICOS",
    ),
]


@pytest.mark.parametrize("text,value,label", VALID, ids=[v[1] for v in VALID])
def test_valid_identifier_is_found(nlp, text, value, label):
    assert found(nlp, text) == [(value, label)]


LOOK_ALIKES = [
    "Leucocitos 12.350/mm3 y plaquetas 600000000/L.",
    "Amoxicilina 500 mg/8h durante 7 días.",
    "Gasometría con pH 7.35 y pCO2 45.",
    "TA 120/80 mmHg, FC 72 lpm.",
    "Diagnóstico C34.1 (CIE-10) y E11.9.",
    "Masa de 3,5 x 2 cm en el lóbulo.",
    "Interferón 1.000.000 UI tres veces por semana.",
    "Operado en 2019 y revisado en 2021.",
    "Ingreso el 12/03/2019 a las 15:30:45 h.",
    "Ki-67 del 45% y PSA de 4,10 ng/ml.",
    "Cariotipo 46,XY con t(9;22) y 6 x 10^9/L neutrófilos.",
    "Estadio T4N0M0, Gleason 7 (3+4).",
    "Documento 45873912A sin más datos.",  # wrong check letter, no key
    "Clave X1234567A en el sobre.",  # NIE with a wrong letter, no key
    "Referencia ES00 1234 5678 9012 3456 7890 errónea.",  # IBAN and account with wrong check digits
    "Serie 28/12345678/91 del lote.",  # NASS shape with a wrong check, no key
    "Glucemia 112 mg/dl, urea 45 mg/dl.",
    "Balance hídrico de +1.500 ml y +2 kg de peso.",  # a sign, not a country code
    "Matrícula del coche pendiente de confirmar.",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alike_is_not_an_identifier(nlp, text):
    assert found(nlp, text) == []


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Número 45873912A en el sobre.", []),
        ("DNI 45873912A en el sobre.", [("45873912A", "ID_SUJETO_ASISTENCIA")]),
        ("Número 45873912K en el sobre.", [("45873912K", "ID_SUJETO_ASISTENCIA")]),
        ("Clave Z0456123A.", []),
        ("NIE: Z0456123A.", [("Z0456123A", "ID_SUJETO_ASISTENCIA")]),
    ],
)
def test_check_letter_matters_only_without_a_key(nlp, text, expected):
    assert found(nlp, text) == expected


@pytest.mark.parametrize(
    "text,value",
    [
        ("Firma con DNI 45873912-\nK y se va.", "45873912-\nK"),
        ("Su NASS es\n28/12345678/90.", "28/12345678/90"),
        ("Teléfono:\n612 34 56 78", "612 34 56 78"),
    ],
)
def test_value_across_a_line_break(nlp, text, value):
    assert [v for v, _ in found(nlp, text)] == [value]


def test_identifier_at_a_sentence_end_leaves_the_period_out(nlp):
    doc = nlp("Vive en Soria. Su correo es pilar.ruiz@ejemplo.es. Llamar al 976 12 34 56.")
    assert [s.text for s in doc.spans["identifiers"]] == ["pilar.ruiz@ejemplo.es", "976 12 34 56"]


def test_overlapping_entity_is_trimmed_or_removed(nlp):
    doc = nlp.make_doc("Paciente Juan Pérez 45873912K vive en ES64 2085 0103 9003 3014 7852 ya.")
    name = doc.char_span(9, 29, label="NOMBRE_SUJETO_ASISTENCIA")  # `Juan Pérez 45873912K`
    start = doc.text.index("2085")
    piece = doc.char_span(start, start + 4, label="TERRITORIO")  # a piece of the IBAN
    doc.ents = [name, piece]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [
        ("Juan Pérez", "NOMBRE_SUJETO_ASISTENCIA"),
        ("45873912K", "ID_SUJETO_ASISTENCIA"),
        ("ES64 2085 0103 9003 3014 7852", "OTROS_SUJETO_ASISTENCIA"),
    ]


@pytest.mark.parametrize(
    "text,wrong,label",
    [
        ("Se envía por fax al 913 59 32 22 del centro.", "913 59 32 22 del", "NUMERO_TELEFONO"),
        ("Teléfono (Marruecos): 00212 612 345 678", "Marruecos): 00212", "NUMERO_FAX"),
        (
            "Atiende la enfermera con nº de empleado u000481 hoy.",
            "empleado u000481",
            "ID_SUJETO_ASISTENCIA",
        ),
    ],
)
def test_number_entity_left_without_digits_is_removed(nlp, text, wrong, label):
    doc = nlp.make_doc(text)
    start = text.index(wrong)
    doc.ents = [doc.char_span(start, start + len(wrong), label=label)]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [e.text for e in doc.ents] == [s.text for s in doc.spans["identifiers"]] and len(
        doc.ents
    ) == 1


def test_entity_with_only_a_key_left_is_removed(nlp):
    doc = nlp.make_doc("Control del DNI 45873912K mañana.")
    doc.ents = [doc.char_span(12, 25, label="OTROS_SUJETO_ASISTENCIA")]  # `DNI 45873912K`
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [("45873912K", "ID_SUJETO_ASISTENCIA")]


def test_same_label_rule_entity_keeps_its_span(nlp):
    doc = nlp.make_doc("NASS: 28 12345678 90 .")
    rule = doc.char_span(6, 17, label="ID_ASEGURAMIENTO")  # `28 12345678`, as a header rule gave it
    doc.ents = [rule]
    doc.spans["rule_entities"] = [rule]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [("28 12345678", "ID_ASEGURAMIENTO")]
    assert list(doc.spans["identifiers"]) == []


def test_keyless_candidate_yields_to_an_identifier_rule_entity(nlp):
    doc = nlp.make_doc("NASS: 765145412-1.")
    rule = doc.char_span(6, 17, label="ID_ASEGURAMIENTO")
    doc.ents = [rule]
    doc.spans["rule_entities"] = [rule]
    doc = nlp.get_pipe("meddocan_identifiers")(doc)
    assert [(e.text, e.label_) for e in doc.ents] == [("765145412-1", "ID_ASEGURAMIENTO")]


REPORT = (
    "Datos del paciente.\n"
    "Nombre: Rosa.\n"
    "Apellidos: Quintana Llorente.\n"
    "NHC: 3372019.\n"
    "NASS: 41 27730195 08.\n"
    "Médico: Dr. Tomás Ibarra Sol  NºCol: 28 28 41977.\n"
    "\n"
    "Informe clínico: mujer de 40 años con DNI 30291745D y móvil 612 34 56 78. "
    "Su hija escribe desde rosa.q@ejemplo.es.\n"
    "\n"
    "Remitido por: Dr. Tomás Ibarra Sol. Teléfono: 976 55 44 33. Cuenta ES64 2085 0103 9003 3014 "
    "7852.\n"
)


def test_every_section_in_the_assembled_rule_pipeline(rule_nlp):
    # identifiers set the last word on identifiers: `number_words` and `code_shapes` only add where
    # none is, `clinical_codes` drops clinical codes (none here), `privacy` adds; the NER's
    # confidence, last, changes no entity
    assert rule_nlp.pipe_names[-6:] == [
        "identifiers",
        "number_words",
        "code_shapes",
        "clinical_codes",
        "privacy",
        "ent_confidence",
    ]
    doc = rule_nlp(REPORT)
    sections = {s.label_: s for s in doc.spans["sections"]}
    assert set(sections) == {"header", "body", "footer"}
    ents = {(e.text, e.label_) for e in doc.ents}
    # header values keep the rules' span and label
    assert {("3372019", "ID_SUJETO_ASISTENCIA"), ("41 27730195 08", "ID_ASEGURAMIENTO")} <= ents
    ids = {s.text: s for s in doc.spans["identifiers"]}
    where = {
        text: next(name for name, sec in sections.items() if sec.start <= s.start < sec.end)
        for text, s in ids.items()
    }
    assert where == {
        "30291745D": "body",
        "612 34 56 78": "body",
        "rosa.q@ejemplo.es": "body",
        "ES64 2085 0103 9003 3014 7852": "footer",
    }
    assert ("976 55 44 33", "NUMERO_TELEFONO") in ents  # the footer rule's, kept
    assert all((text, s.label_) in ents for text, s in ids.items())


def test_serialization_round_trip(nlp, tmp_path):
    text = "DNI 45873912K, móvil 612 34 56 78, www.ejemplo.es."
    expected = found(nlp, text)
    assert len(expected) == 3
    fresh = blank_pipeline()
    fresh.add_pipe("meddocan_identifiers")
    assert found(fresh, text) == []  # no patterns until initialized or loaded
    fresh.get_pipe("meddocan_identifiers").from_bytes(
        nlp.get_pipe("meddocan_identifiers").to_bytes()
    )
    assert found(fresh, text) == expected
    nlp.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    assert found(loaded, text) == expected
    assert srsly.read_jsonl(tmp_path / "pipe" / "meddocan_identifiers" / "patterns.jsonl")


@pytest.mark.parametrize(
    "entry,message",
    [
        ({"kind": "x", "label": "DNI", "pattern": "\\d+", "keyless": True}, "not a MEDDOCAN label"),
        ({"kind": "x", "label": "URL_WEB", "pattern": "\\d+"}, "needs 'keys' or 'keyless'"),
        (
            {"kind": "x", "label": "URL_WEB", "pattern": "(\\d+", "keyless": True},
            "invalid regex in pattern",
        ),
        (
            {
                "kind": "x",
                "label": "URL_WEB",
                "pattern": "\\d+",
                "keyless": True,
                "validator": "luhn9",
            },
            "unknown validator",
        ),
        ({"label": "URL_WEB", "pattern": "\\d+", "keyless": True}, "needs 'kind'"),
    ],
)
def test_bad_pattern_is_named(entry, message):
    with pytest.raises(ValueError, match=message) as err:
        validate_patterns(
            [{"kind": "ok", "label": "URL_WEB", "pattern": "a", "keyless": True}, entry]
        )
    assert "identifier pattern 2" in str(err.value)


@pytest.mark.parametrize(
    "name,value,valid",
    [
        ("nass", "28/31457802/60", True),
        ("nass", "28/31457802/61", False),
        ("nass", "281234567032", True),
        ("phone_es", "612 34 56 78", True),
        ("phone_es", "+34 912 345 678", True),
        ("phone_es", "512345678", False),
        ("phone_es", "666666666", False),
        ("phone_es", "6 1234 5678 9", False),
        ("phone_intl", "+44 20 7946 0958", True),
        ("phone_intl", "00212 612 345 678", True),
        ("phone_intl", "+34 912 345 678", False),  # Spanish: phone_es checks it
        ("phone_intl", "+1.500", False),
        ("ip", "192.168.0.23", True),
        ("ip", "256.1.1.1", False),
        ("ip", "12:30:45", False),
        ("dni", "45.873.912-K", True),
        ("dni", "45873912A", False),
        ("iban", "ES64 2085 0103 9003 3014 7852", True),
        ("ccc", "2085 0103 91 0330147852", False),
    ],
)
def test_validators(name, value, valid):
    assert VALIDATORS[name](value) is valid


def test_every_pattern_label_follows_the_guidelines():
    """IP and MAC are device identifiers (P23.1), addresses with a protocol are
    DIREC_PROT_INTERNET (P24.1), `www.` addresses URL_WEB (P25.1)."""
    labels = {p["kind"]: p["label"] for p in read_identifier_patterns(PATTERNS)}
    assert labels["ipv4"] == labels["mac"] == "IDENTIF_DISPOSITIVOS_NRSERIE"
    assert labels["url_scheme"] == "DIREC_PROT_INTERNET" and labels["url_www"] == "URL_WEB"
    assert all(p.get("note") for p in read_identifier_patterns(PATTERNS))
