"""The checks of clinical codes, each with valid and invalid check digits, alone and in
invented sentences."""

import pytest
from stdnum import luhn, verhoeff

from meddocan_deid.pipeline import clinical_codes as cc
from meddocan_deid.pipeline.keep_clinical_codes import code_words, default_words


@pytest.fixture(scope="module")
def finder():
    return cc.CodeFinder(code_words(default_words()))


def found(finder, text):
    return [(text[c.start : c.end], c.kind) for c in finder.find(text)]


def _wrong_last(value: str) -> str:
    return value[:-1] + str((int(value[-1]) + 1) % 10)


@pytest.mark.parametrize(
    "value", ["22298006", "44054006", "38341003", "195967001", "900000000000207008"]
)
def test_snomed_ids_with_their_check_digit_and_partition(value):
    assert cc.snomed_id(value)
    assert not cc.snomed_id(_wrong_last(value))


def test_snomed_partition_must_be_a_concept_description_or_extension():
    body = "1234567" + "05"  # partition 05 does not exist
    assert not cc.snomed_id(body + verhoeff.calc_check_digit(body))
    body = "1234567" + "10"
    assert cc.snomed_id(body + verhoeff.calc_check_digit(body))


@pytest.mark.parametrize("value", ["2345-7", "4548-4", "2160-0", "718-7"])
def test_loinc_check_digit_is_luhn(value):
    assert cc.loinc_code(value)
    assert not cc.loinc_code(_wrong_last(value))


def test_meddra_range():
    assert cc.meddra_code("10019211") and cc.meddra_code("10000001")
    assert (
        not cc.meddra_code("10100000")
        and not cc.meddra_code("20019211")
        and not cc.meddra_code("1001921")
    )


def test_trial_numbers():
    assert cc.eudract_number("2015-001234-56") and not cc.eudract_number("1998-001234-56")
    assert cc.euct_number("2023-501234-12-00") and not cc.euct_number("2023-401234-12-00")
    assert cc.nct_number("NCT01234567") and not cc.nct_number("NCT0123456")


def test_icd10_and_atc():
    assert cc.icd10_code("C34.1") and cc.icd10_code("S72.001A") and cc.icd10_code("U07.1")
    assert not cc.icd10_code("C61") and cc.icd10_code("C61", cued=True)
    assert not cc.icd10_code("C3.41")
    assert cc.atc_code("C10AA05") and not cc.atc_code("C10A05") and not cc.atc_code("E10AA05")


@pytest.mark.parametrize(
    "value",
    [
        "p.(Arg175His)",
        "p.Arg175His",
        "p.R175H",
        "p.(Gly12Asp)",
        "p.Glu746_Ala750del",
        "p.(Arg97Profs*23)",
        "p.Q61fs",
        "p.Trp24*",
        "c.35G>A",
        "c.68_69delAG",
        "c.5266dupC",
        "c.1234_1235insA",
        "c.88+1G>T",
        "c.-14C>T",
        "g.12345A>G",
        "m.3243A>G",
        "n.76A>T",
        "r.76a>c",
        "c.(35G>A)",
        "NM_000546.6:c.524G>A",
        "rs121913529",
    ],
)
def test_hgvs_variants(value):
    assert cc.hgvs_variant(value)


@pytest.mark.parametrize("value", ["p.(Abc175His)", "c.35G>", "p.", "c.ABC", "x.35G>A", "rs12"])
def test_not_hgvs(value):
    assert not cc.hgvs_variant(value)


@pytest.mark.parametrize(
    "value",
    [
        "46,XX",
        "46,XY",
        "45,X",
        "47,XY,+21",
        "47,XXY",
        "46,XX,t(9;22)(q34;q11)",
        "46,XY,del(5)(q13q33)",
        "46,XX,inv(16)(p13q22)",
        "47,XX,+18[20]",
    ],
)
def test_karyotypes(value):
    assert cc.karyotype(value)


@pytest.mark.parametrize("value", ["46,XZ", "12,XX", "46,XX,", "46XX"])
def test_not_karyotypes(value):
    assert not cc.karyotype(value)


def test_snomed_needs_a_cue_or_a_list(finder):
    text = (
        "Codificado en SNOMED CT: 22298006 (infarto agudo de miocardio), 44054006 (diabetes tipo "
        "2)."
    )
    assert found(finder, text) == [("22298006", "snomed"), ("44054006", "snomed")]
    assert found(finder, "Se le asigna el número 22298006 en la consulta.") == []
    # a wrong check digit after the cue is no SNOMED id
    assert found(finder, "SNOMED CT: 22298007.") == []


def test_meddra_after_its_cue(finder):
    text = "Reacción adversa notificada con MedDRA PT 10019211 y LLT 10019233."
    assert found(finder, text) == [("10019211", "meddra"), ("10019233", "meddra")]
    assert found(finder, "Consta el código 10019211 en la hoja.") == []


def test_codes_recognised_alone_in_sentences(finder):
    text = (
        "Glucosa (LOINC 2345-7). Incluida en el ensayo 2015-001234-56 (NCT01234567; EU CT "
        "2023-501234-12-00). Diagnóstico de alta C34.1; tratamiento C10AA05. Variante TP53 "
        "p.(Arg175His) y cariotipo 47,XY,+21."
    )
    assert found(finder, text) == [
        ("2345-7", "loinc"),
        ("2015-001234-56", "eudract"),
        ("NCT01234567", "nct"),
        ("2023-501234-12-00", "euct"),
        ("C34.1", "icd10"),
        ("C10AA05", "atc"),
        ("p.(Arg175His)", "hgvs"),
        ("47,XY,+21", "karyotype"),
    ]
    assert found(finder, "Glucosa 2345-8 en la tira.") == []  # wrong Luhn digit


def test_icd10_category_after_a_cue_or_in_a_list(finder):
    assert found(finder, "Diagnósticos CIE-10: I10, E11.9 y N18.3.") == [
        ("I10", "icd10"),
        ("E11.9", "icd10"),
        ("N18.3", "icd10"),
    ]
    assert found(finder, "Pase a la sala B12 del edificio.") == []


def test_lot_model_bed_room_and_ehr(finder):
    text = (
        "Vacuna administrada, lote FH8476; apósito L. 4521B. Marcapasos Medtronic Adapta ADDR01, "
        "modelo 5076-52. Ingresa en la cama 12 de la hab. 214. Registrado en Diraya."
    )
    codes = {
        (text[c.start : c.end], c.kind, text[c.cue_start : c.start].strip())
        for c in finder.find(text)
    }
    assert codes == {
        ("FH8476", "lot", "lote"),
        ("4521B", "lot", "L."),
        ("ADDR01", "model", "Adapta"),
        ("5076-52", "model", ""),
        ("12", "bed", "cama"),
        ("214", "room", "hab."),
        ("Diraya", "ehr", ""),
    }


@pytest.mark.parametrize(
    "text,value",
    [
        ("Cama: 412-B", "412-B"),
        ("Hab./Cama: 512B", "512B"),
        ("Ingrés al llit 9.", "9"),
        ("nº de cama 7-A", "7-A"),
    ],
)
def test_a_bed_after_its_key_or_in_catalan(finder, text, value):
    assert found(finder, text) == [(value, "bed")]


@pytest.mark.parametrize(
    "text,code",
    [
        ("Se dispensa con registro sanitario INVIMA 2019M-0012345.", "2019M-0012345"),
        ("Producto con Reg. ISP F-12345/19 en la caja.", "F-12345/19"),
        ("Registro sanitario COFEPRIS 455M2018 vigente.", "455M2018"),
        ("Certificado ANMAT 12345 del dispositivo.", "12345"),
    ],
)
def test_sanitary_registrations_after_their_cue(finder, text, code):
    assert (code, "registration") in found(finder, text)


def test_form_numbers_after_their_cue(finder):
    assert ("4-30-8", "form") in found(finder, "Se llena el formato 4-30-8 para la incapacidad.")
    assert found(finder, "Se llena el formato de alta.") == []


def test_a_registration_needs_its_cue_and_a_digit(finder):
    assert ("2019M-0012345", "registration") not in found(finder, "Consta 2019M-0012345 aquí.")
    assert found(finder, "Registro sanitario INVIMA pendiente.") == []


def test_ehr_names_that_are_people_need_a_cue(finder):
    assert found(finder, "Consta en la historia clínica electrónica Selene.") == [("Selene", "ehr")]
    assert found(finder, "Acude con su hija Selene.") == []


@pytest.mark.parametrize(
    "text",
    [
        "NHC: 22298006.",
        "SIP 10019211",
        "N.H.C. 2345-7",
        "DNI: 2015-001234-56",
        "teléfono C34.1",
        "Historia clínica nº p.R175H",
    ],
)
def test_a_phi_key_names_the_value(finder, text):
    assert found(finder, text) == []


def test_a_key_of_an_earlier_sentence_does_not(finder):
    assert found(finder, "Historia en Diraya. EudraCT 2015-001234-56.") == [
        ("Diraya", "ehr"),
        ("2015-001234-56", "eudract"),
    ]


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown clinical code kind"):
        cc.CodeFinder(code_words(default_words()), kinds=["snomed", "dni"])


def test_generated_codes_are_valid():
    # the identifier set's generator builds codes the same way
    body = "7654321" + "00"
    assert cc.snomed_id(body + verhoeff.calc_check_digit(body))
    assert cc.loinc_code(f"12345-{luhn.calc_check_digit('12345')}")
