"""address_parts: NER entities that run across address parts are cut at street heads
and postal codes; clean entities and rule entities stay as they are."""

import pytest
from conftest import build_rule_nlp
from spacy.tokens import Span


@pytest.fixture(scope="module")
def nlp():
    return build_rule_nlp()


def run(nlp, text, ents, rules=()):
    """ents: (first token text, last token text, label) of NER entities, found in order."""
    doc = nlp.make_doc(text)
    for name in ("sections", "phi_rules"):
        doc = nlp.get_pipe(name)(doc)
    words = [t.text for t in doc]

    def span(first, last, label, after=0):
        s = words.index(first, after)
        e = words.index(last, s) + 1
        return Span(doc, s, e, label=label)

    spans, after = [], 0
    for first, last, label in ents:
        spans.append(span(first, last, label, after))
        after = spans[-1].end
    doc.ents = spans
    doc.spans["rule_entities"] = [s for s in spans if (s[0].text, s[-1].text, s.label_) in rules]
    doc = nlp.get_pipe("address_parts")(doc)
    return [(e.label_, e.text) for e in doc.ents]


@pytest.mark.parametrize(
    "text,ents,expected",
    [
        # a postal code inside a street or a town stands alone
        (
            "Hospital La Mancha Avenida de la Constitución 13600 Alcázar de San Juan",
            [("Avenida", "13600", "CALLE")],
            [("CALLE", "Avenida de la Constitución"), ("TERRITORIO", "13600")],
        ),
        (
            "C/ José Luis Galán, 2. C.P. 45600 - Talavera de la Reina. Toledo",
            [("45600", "Reina", "TERRITORIO")],
            [("TERRITORIO", "45600"), ("TERRITORIO", "Talavera de la Reina")],
        ),
        # a street head inside a hospital starts the street when it has a number
        (
            "Servicio de Neumología Hospital de Pontevedra Avda. Outeiro Crespo, 2 36002 "
            "Pontevedra",
            [("Hospital", "2", "HOSPITAL")],
            [("HOSPITAL", "Hospital de Pontevedra"), ("CALLE", "Avda. Outeiro Crespo, 2")],
        ),
        # ... or when the NER found the rest of the street right after it
        (
            "Hospital Miguel Servet Pso. Teresa La Católica, s/n. 50009 Zaragoza",
            [("Hospital", "Pso", "HOSPITAL"), ("Teresa", "n", "CALLE")],
            [("HOSPITAL", "Hospital Miguel Servet"), ("CALLE", "Pso. Teresa La Católica, s/n")],
        ),
        # a street starting right after a free street head takes the head in
        (
            "Hospital Virgen de la Arrixaca Ctra. Toledo - Cuenca s/n 30120 Murcia",
            [("Toledo", "n", "CALLE")],
            [("CALLE", "Ctra. Toledo - Cuenca s/n")],
        ),
        (
            "Remitido por: Dra. Ana Gil C/ Mayor, 5 28001 Madrid",
            [("Mayor", "5", "CALLE")],
            [("CALLE", "C/ Mayor, 5")],
        ),
        (
            "vive en la Avenida Alcalde Ruiz, 3 de Jaén",
            [("Alcalde", "3", "CALLE")],
            [("CALLE", "Avenida Alcalde Ruiz, 3")],
        ),
        # a place that ends in a house number holds a street with no head, after its `de <Name>`
        (
            "Dr. Karra Amillano. Instituto Oncológico de Guipúzcoa Arrietabea, 44 E-20012 San "
            "Sebastián",
            [("Instituto", "44", "INSTITUCION")],
            [("INSTITUCION", "Instituto Oncológico de Guipúzcoa"), ("CALLE", "Arrietabea, 44")],
        ),
        (
            "Universidad de Valencia Serrà Molins Nº 1. Valencia",
            [("Universidad", "1", "INSTITUCION")],
            [("INSTITUCION", "Universidad de Valencia"), ("CALLE", "Serrà Molins Nº 1")],
        ),
        (
            "Instituto de Medicina Legal, Ciudad de la Justicia Fiscal Luis Portillo, 6 29010 "
            "Málaga",
            [("Ciudad", "6", "INSTITUCION")],
            [("INSTITUCION", "Ciudad de la Justicia"), ("CALLE", "Fiscal Luis Portillo, 6")],
        ),
        # ... or, with no `de` part, is the last two words before the number
        (
            "Hospital Ruiz Cortés Fuente Vieja, 12 31200 Estella",
            [("Hospital", "12", "HOSPITAL")],
            [("HOSPITAL", "Hospital Ruiz Cortés"), ("CALLE", "Fuente Vieja, 12")],
        ),
        # capitalised words after a street's house number are the town ...
        (
            "Dra. Ana Gil C/. La Encina 167 Villanueva. Reocín 39539 Cantabria",
            [("C/.", "Villanueva", "CALLE")],
            [("CALLE", "C/. La Encina 167"), ("TERRITORIO", "Villanueva")],
        ),
        # a town and its province are two places
        (
            "C/ La Alameda s/n. 24411 Ponferrada León e-mail",
            [("Ponferrada", "León", "TERRITORIO")],
            [("TERRITORIO", "Ponferrada"), ("TERRITORIO", "León")],
        ),
        (
            "José Arteaga s/n 01009 Vitoria-Gasteiz Álava. España",
            [("Vitoria", "Álava", "TERRITORIO")],
            [("TERRITORIO", "Vitoria-Gasteiz"), ("TERRITORIO", "Álava")],
        ),
    ],
)
def test_address_parts_are_split(nlp, text, ents, expected):
    assert run(nlp, text, ents) == expected


@pytest.mark.parametrize(
    "text,ents",
    [
        # `E-47005` is one postal code, and a post-office box keeps its number
        ("Avda. Ramón y Cajal, 19 E-47005 Valladolid", [("E", "47005", "TERRITORIO")]),
        (
            "Remitido por: Luis Pérez Apartado de Correos 31207 48080 Bilbao",
            [("Apartado", "31207", "CALLE")],
        ),
        # a street word without a street after it is part of the name
        (
            "ingresó en el Hospital Plaza de la Salud por fiebre",
            [("Hospital", "Salud", "HOSPITAL")],
        ),
        (
            "Hospital Universitario Central de Asturias, Oviedo",
            [("Hospital", "Asturias", "HOSPITAL")],
        ),
        # a place that ends in a number but not a house number, or with no name after `de`
        ("Hospital Juan Canalejo Planta 11", [("Hospital", "11", "HOSPITAL")]),
        ("Hospital Universitario de la Princesa, 3", [("Hospital", "3", "HOSPITAL")]),
        # with no `de` part: too short to hold a hospital and a street, or not two plain words
        ("Hospital Santa Clara, 3", [("Hospital", "3", "HOSPITAL")]),
        ("Hospital Central ACME Toledo, 5", [("Hospital", "5", "HOSPITAL")]),
        ("Hospital Central Sta. Pinto, 5", [("Hospital", "5", "HOSPITAL")]),
        # the province is part of the name
        ("vive en Villanueva de Córdoba desde niña", [("Villanueva", "Córdoba", "TERRITORIO")]),
        ("CP 66260 Monterrey, Nuevo León, México", [("Nuevo", "León", "TERRITORIO")]),
        ("natural de Ciudad Real", [("Ciudad", "Real", "TERRITORIO")]),
    ],
)
def test_clean_entities_are_unchanged(nlp, text, ents):
    before = run(nlp, text, [])  # no entity, nothing to split
    assert before == []
    doc_ents = run(nlp, text, ents)
    assert [lab for lab, _ in doc_ents] == [lab for *_, lab in ents]
    assert len(doc_ents) == len(ents)


@pytest.mark.parametrize(
    "text,ents,expected",
    [
        # a footer street the NER missed is filled in, up to its number or `s/n`
        (
            "Remitido por: Dr. Luis Gil. Urb. El Olivar, 16. 35307 Santa Brígida",
            [("35307", "35307", "TERRITORIO")],
            [("CALLE", "Urb. El Olivar, 16"), ("TERRITORIO", "35307")],
        ),
        (
            "Remitido por: Dr. Luis Gil. Hospital Central. Avd. de Fresnos s/n. 17007 Girona",
            [("Hospital", "Central", "HOSPITAL")],
            [("HOSPITAL", "Hospital Central"), ("CALLE", "Avd. de Fresnos s/n")],
        ),
        (
            "Remitido por: Dr. Luis Gil. Hospital Central. Gran Vía, 87. 28013 Madrid",
            [("Hospital", "Central", "HOSPITAL")],
            [("HOSPITAL", "Hospital Central"), ("CALLE", "Gran Vía, 87")],
        ),
        # a street the NER found keeps the NER's ends
        (
            "Remitido por: Dr. Luis Gil. Calle Mayor, 5, 2º B 28001 Madrid",
            [("Calle", "B", "CALLE")],
            [("CALLE", "Calle Mayor, 5, 2º B")],
        ),
        # no house number: nothing to fill
        ("Remitido por: Dr. Luis Gil. Avda. José Lamas. Caracas", [], []),
        # outside the footer the NER decides alone
        ("Informe clínico del paciente: vive en la calle Mayor, 5 con su madre.", [], []),
    ],
)
def test_footer_streets_are_filled_in(nlp, text, ents, expected):
    assert run(nlp, text, ents) == expected


@pytest.mark.parametrize(
    "text,street",
    [
        # words after a house number that are the address: a floor, a door letter, a district
        ("Remitido por: Luis Gil. Calle Daoiz, 12 Bajo B 28004 Madrid", "Calle Daoiz, 12 Bajo B"),
        ("Remitido por: Luis Gil. Calle Mayor 5 B 28004 Madrid", "Calle Mayor 5 B"),
        (
            "Remitido por: Luis Gil. Avenida del Sol # 4800 Colonia Sección XVI",
            "Avenida del Sol # 4800 Colonia Sección XVI",
        ),
        ("Remitido por: Luis Gil. Calle 64b Numero 52-118 Medellín", "Calle 64b Numero 52-118"),
        # a second street after the number stays in the same entity, as in the gold
        (
            "Dra. Ana Gil C/ Cedro, 23 Camino de la Sierra, 4 28250 Torrelodones",
            "C/ Cedro, 23 Camino de la Sierra, 4",
        ),
    ],
)
def test_the_rest_of_an_address_stays_in_its_street(nlp, text, street):
    words = street.replace(",", " ,").split()
    assert run(nlp, text, [(words[0], words[-1], "CALLE")]) == [("CALLE", street)]


def test_a_street_head_held_by_another_entity_stays_there(nlp):
    text = "Hospital Virgen del Camino Iturrigorri, 4 31008 Pamplona"
    ents = [("Hospital", "Camino", "HOSPITAL"), ("Iturrigorri", "4", "CALLE")]
    assert run(nlp, text, ents) == [
        ("HOSPITAL", "Hospital Virgen del Camino"),
        ("CALLE", "Iturrigorri, 4"),
    ]


def test_rule_entities_are_never_split(nlp):
    text = "Domicilio: Avenida Mayor 28001 Madrid"
    ents = [("Avenida", "Madrid", "CALLE")]
    assert run(nlp, text, ents, rules={("Avenida", "Madrid", "CALLE")}) == [
        ("CALLE", "Avenida Mayor 28001 Madrid")
    ]
