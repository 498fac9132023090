"""Country detection per report (meddocan_deid.country): invented texts, one per country, the
override by the `country` option and policy key, and `doc._.country`."""

from pathlib import Path

import pytest
import spacy

from meddocan_deid import country as country_module
from meddocan_deid import country_data
from meddocan_deid.brat import read_brat_dir
from meddocan_deid.country import MIN_SCORE, country_of, detect_country
from meddocan_deid.country_data import places
from meddocan_deid.deid.operators import apply_operator
from meddocan_deid.deid.options import DeidOptions, as_options
from meddocan_deid.deid.policy import PolicyError, parse_policy

TEXTS = {
    "MX": "Derechohabiente del IMSS, UMF No. 12. CURP: GOMA850312HDFRRN09. Col. Roma Norte.",
    "CL": "Beneficiaria de Fonasa tramo B, control en CESFAM Cordillera. RUN 12.345.678-5.",
    "AR": "Afiliado a la obra social OSDE, CUIL 20-12345678-3, vive en Lanús.",
    "CO": "Afiliada a Nueva EPS. Cédula de ciudadanía 52.345.678. Calle 10 # 5-51, Bogotá.",
    "PE": "Asegurado de EsSalud, DNI 45678912. Domicilio Jr. Huallaga 345.",
    "VE": "C.I. V-12.345.678, atendido en el CDI de Petare, Miranda.",
    "UY": "Usuaria de ASSE, cédula 1.234.567-2, vive en Paysandú.",
    "CU": "Vive en calle 7 e/ 40 y 41, reparto Vista Alegre. Policlínico Docente Plaza.",
    "DO": "Afiliado a SENASA, cédula 001-1234567-8, teléfono (809) 555-0123.",
    "EC": "Afiliado al IESS, vive en Guayaquil, cantón Samborondón.",
    "CR": "Asegurada de la CCSS, control en el EBAIS de Curridabat.",
    "GT": "Afiliado al IGSS. DPI 1234 56789 0101, vive en Huehuetenango.",
    "SV": "Asegurada del ISSS; DUI 00016297-5; celular 7012 3456.",
    "HN": "Derechos en el IHSS, tarjeta de identidad 0801-1985-01234.",
    "NI": "Cédula 001-010190-0000M, consulta en Jinotepe.",
    "PA": "Asegurado de la Caja de Seguro Social, teléfono +507 6123-4567.",
    "US": "Covered by Medicaid, SSN 123-45-6789, lives in Houston.",
    "ES": "DNI 12345678Z, vive en Getafe (Madrid), tarjeta sanitaria del SERMAS.",
}


@pytest.mark.parametrize("country", sorted(TEXTS))
def test_each_country_is_detected(country):
    assert country_of(TEXTS[country]) == country


@pytest.mark.parametrize(
    "country,text",
    [
        ("GT", "Contacto: +502 5123 4567 y +502 2234 5678."),
        ("SV", "DUI 00016297-5."),
        ("HN", "Identidad: 0801-1985-01234."),
        ("NI", "001-010190-0000M"),
        ("PA", "Ministerio de Salud de Panamá, tel. +507 6123-4567."),
    ],
)
def test_central_america_by_each_kind_of_evidence(country, text):
    # the dialling code of its plan, a keyed identity document, a shape with its check
    # (the Nicaraguan cédula's birth date and letter) or an institution with a phone
    assert country_of(text) == country


def test_a_check_decides_whether_a_shape_counts():
    assert detect_country("Ref. 00016297-5.").scores.get("SV") == 2  # a DUI's check digit
    assert "SV" not in detect_country("Ref. 00016297-6.").scores
    assert detect_country("001-010190-0000M").scores["NI"] == 4  # birth date and letter
    assert detect_country("001-010190-0000A").scores["NI"] == 3  # birth date only
    assert "NI" not in detect_country("001-320190-0000M").scores  # day 32


def test_a_national_phone_is_weak_evidence():
    # eight digits after a phone key are valid in several plans of Central America: each
    # gets a little, none is chosen; a Spanish number gives them nothing
    scores = detect_country("Tel.: 2216 2779.").scores
    assert {"GT", "SV", "HN", "NI", "CR"} <= set(scores)
    assert max(scores.values()) < 1
    assert country_of("Tel.: 2216 2779.") == "ES"
    assert detect_country("Tel.: 912 345 678.").scores == {}


def test_the_evidence_cache_holds_no_text(monkeypatch):
    monkeypatch.setattr(country_module, "EVIDENCE_CACHE_SIZE", 4)
    texts = [f"Asegurada del ISSS, vive en Santa Tecla, expediente {n}." for n in range(6)]
    for text in texts:
        assert country_of(text) == "SV"
    cache = country_module._evidence_cache
    assert len(cache) == 4
    assert all(isinstance(key, bytes) and len(key) == 16 for key in cache)
    held = [s for value in cache.values() for s in _strings(value)]
    assert held and all(s in country_data.countries() for s in held)
    # a text met again is read from the cache: the same scores
    assert detect_country(texts[-1]) == detect_country(texts[-1])


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (tuple, list, frozenset, set)):
        return [s for item in value for s in _strings(item)]
    return []


def test_a_text_without_evidence_is_spains():
    detection = detect_country("Varón de 60 años que acude por dolor torácico.")
    assert detection.country == "ES" and detection.scores == {}


def test_places_alone_are_not_enough():
    # a patient may come from anywhere: places never reach the minimum score by themselves
    text = "Natural de Temuco; vivió en Ñuñoa, Maipú, Peñalolén y Valdivia."
    assert detect_country(text).scores["CL"] < MIN_SCORE
    assert country_of(text) == "ES"


def test_a_university_of_the_americas_is_no_evidence():
    # a Spanish report may name where a doctor studied; an agency of the country does count
    studied = "Médico residente, licenciado por la Universidad de Chile y la UNAM."
    assert detect_country(studied).scores == {}
    assert detect_country("Denuncia ante Carabineros de Chile.").scores["CL"] > 0


def test_a_places_entity_counts():
    # `comuna` and one capitalised Chilean place fall short; the TERRITORIO entity of a place
    # written in lower case adds the third
    text = "Vive en la comuna de Ñuñoa; antes en peñalolén."
    start = text.index("peñalolén")
    assert country_of(text) == "ES"
    assert country_of(text, [("TERRITORIO", start, start + 9)]) == "CL"
    # what the text alone shows is kept for the next call on it, the entities' places are not
    assert country_of(text) == "ES"


def test_doc_country_is_detected_and_settable():
    nlp = spacy.blank("es")
    doc = nlp(TEXTS["PE"])
    assert doc._.country == "PE"
    doc._.country = "cl"
    assert doc._.country == "CL"
    with pytest.raises(ValueError, match="unknown country 'XX'"):
        doc._.country = "XX"


def test_the_option_overrides_the_detection():
    text = TEXTS["MX"] + " Vive en Toluca."
    start = text.index("Toluca")
    spans = [("TERRITORIO", start, start + 6)]
    for country in ("MX", "CL"):
        result = apply_operator(
            text, spans, "surrogate", key=b"k" * 16, options=DeidOptions(country=country)
        )
        new = result.text[result.replacements[0].new_start : result.replacements[0].new_end]
        assert new in places(country)


def test_the_option_and_the_policy_check_the_code():
    assert as_options({"country": "mx"}).country == "MX"
    with pytest.raises(ValueError, match="option country: unknown country"):
        as_options({"country": "XX"})
    assert parse_policy({"country": "co"}).apply().country == "CO"
    with pytest.raises(PolicyError, match="country: unknown country"):
        parse_policy({"country": "Narnia"})


@pytest.mark.parametrize("folder", ["countries", "countries_unseen"])
def test_invented_reports_are_detected(folder):
    # tests/data/countries: the invented reports the cue weights were set on;
    # countries_unseen: reports written afterwards
    path = Path(__file__).parent / "data" / folder
    expected = dict(
        line.split("\t")
        for line in (path / "countries.tsv").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    docs = list(read_brat_dir(path))
    assert len(docs) == len(expected) >= 13
    wrong = [d.doc_id for d in docs if country_of(d.text, d.entities) != expected[d.doc_id]]
    assert wrong == []
