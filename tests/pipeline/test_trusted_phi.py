"""Trusted-PHI propagation: a string labelled with confidence in a report is labelled
at its other exact occurrences in the same report, and never in another report."""

import pytest
from spacy.tokens import Span

HEADER = (
    "Datos del paciente.\n"
    "Nombre: Ana.\n"
    "Apellidos: Olmedo Rivas.\n"
    "Edad: 16 años\n"
    "Sexo: M.\n"
    "Médico: Dr. Luis Albarrán Tejero  NºCol: 28 31 64120.\n"
    "\n"
)
BODY = (
    "Informe clínico: la señora Olmedo Rivas acude con su hija. "
    "Ana refiere dolor. M. Olmedo Rivas, de 16 años, es alérgica. "
    "Consulta con el Dr. Luis Albarrán Tejero. Sin antecedentes (Olmedo Rivas).\n"
    "Nota: Olmedo Rivasa no es la paciente; tampoco Olmedo Rivas2; ni ana.Olmedo Rivas@x.es.\n"
    "\n"
)
FOOTER = "Remitido por: Dr. Luis Albarrán Tejero. Olmedo Rivas, 16 años.\n"
REPORT = HEADER + BODY + FOOTER


def ents(doc, key=None):
    spans = doc.ents if key is None else doc.spans[key]
    return [(e.label_, e.text, e.start_char) for e in spans]


def occurrences(text, sub):
    i, found = text.find(sub), []
    while i >= 0:
        found.append(i)
        i = text.find(sub, i + 1)
    return found


@pytest.fixture(scope="module")
def doc(rule_nlp):
    return rule_nlp(REPORT)


def test_surname_propagates_to_exact_token_bounded_occurrences(doc):
    labelled = [(lab, s) for lab, t, s in ents(doc) if t == "Olmedo Rivas"]
    assert all(lab == "NOMBRE_SUJETO_ASISTENCIA" for lab, _ in labelled)
    starts = [s for _, s in labelled]
    header_start = REPORT.index("Olmedo Rivas")
    expected = [
        header_start,
        BODY.index("señora Olmedo Rivas") + len("señora ") + len(HEADER),
        BODY.index("M. Olmedo Rivas") + len("M. ") + len(HEADER),
        BODY.index("(Olmedo Rivas)") + 1 + len(HEADER),
        len(HEADER) + len(BODY) + FOOTER.index("Olmedo Rivas"),
    ]
    assert starts == expected


def test_not_inside_a_longer_word(doc):
    for word in ("Olmedo Rivasa", "Olmedo Rivas2", "ana.Olmedo Rivas@x.es"):
        start = REPORT.index(word)
        end = start + len(word)
        # (`Rivas@x.es` is an e-mail address for the identifiers component, not trusted PHI)
        assert not any(
            e.start_char < end and start < e.end_char
            for e in doc.ents
            if e.label_ != "CORREO_ELECTRONICO"
        )


def test_propagated_spans_are_recorded(doc):
    trusted = ents(doc, "trusted_phi")
    assert (
        "NOMBRE_SUJETO_ASISTENCIA",
        "Olmedo Rivas",
        REPORT.index("señora Olmedo") + len("señora "),
    ) in trusted
    rule_starts = {e.start_char for e in doc.spans["rule_entities"]}
    assert not any(s in rule_starts for _, _, s in trusted)  # only the other occurrences
    assert set(trusted) <= set(ents(doc))


def test_other_header_values_propagate(doc):
    names = [
        s
        for lab, t, s in ents(doc)
        if (lab, t) == ("NOMBRE_PERSONAL_SANITARIO", "Luis Albarrán Tejero")
    ]
    assert names == occurrences(REPORT, "Luis Albarrán Tejero")
    ages = [s for lab, t, s in ents(doc) if (lab, t) == ("EDAD_SUJETO_ASISTENCIA", "16 años")]
    assert ages == occurrences(REPORT, "16 años")


def test_sex_letter_is_never_propagated(doc):
    sex = [t for lab, t, _ in ents(doc) if lab == "SEXO_SUJETO_ASISTENCIA"]
    assert sex == ["M"]  # only the header value, not `M. Olmedo` in the body


def test_short_strings_are_not_propagated(doc):
    # `Ana` (3 characters) is labelled in the header only
    assert [s for _, t, s in ents(doc) if t == "Ana"] == [REPORT.index("Ana")]


@pytest.mark.parametrize("sex", ["H", "M", "Mujer", "Varón"])
def test_sex_values_of_any_length_are_not_propagated(rule_nlp, sex):
    doc = rule_nlp(f"Datos del paciente.\nSexo: {sex}.\n\nInforme clínico: {sex} estable. {sex}.\n")
    assert [t for lab, t, _ in ents(doc)] == [sex]
    assert list(doc.spans["trusted_phi"]) == []


def test_no_leak_across_documents_in_a_batch(rule_nlp):
    second = "Informe clínico: la señora Olmedo Rivas acude por dolor. Dr. Luis Albarrán Tejero.\n"
    first_doc, second_doc = rule_nlp.pipe([REPORT, second], batch_size=2)
    assert any(t == "Olmedo Rivas" for _, t, _ in ents(first_doc))
    # the doctor after `Dr.` is found in the second report on its own (fields); the patient is not
    assert not any("Olmedo" in t for _, t, _ in ents(second_doc))
    assert list(second_doc.spans["trusted_phi"]) == []
    # nor in the other order, nor in a later batch
    docs = list(rule_nlp.pipe([second, REPORT, second], batch_size=1))
    assert not any("Olmedo" in e.text for d in (docs[0], docs[2]) for e in d.ents)


def test_document_without_trusted_strings(rule_nlp):
    doc = rule_nlp("Informe clínico: sin hallazgos.\n")
    assert list(doc.spans["trusted_phi"]) == []


# -- NER labels: call the component directly on a doc with entities ------------------


def run_with_ner(nlp, text, ner):
    """Run the rules before the NER, add `ner` (label, text, occurrence) as doc.ents where the
    trained NER stands (after `fields`), then run the components after it up to trusted_phi."""
    doc = nlp.make_doc(text)
    names = nlp.pipe_names
    for name in names[: names.index("fields") + 1]:
        doc = nlp.get_pipe(name)(doc)
    spans = list(doc.ents)
    for label, surface, nth in ner:
        start = occurrences(text, surface)[nth]
        span = doc.char_span(start, start + len(surface), label=label)
        # the trained NER keeps what the rules already set, so a span the rules found stays
        if not any(s.start < span.end and span.start < s.end for s in spans):
            spans.append(span)
    doc.ents = spans
    for name in names[names.index("fields") + 1 : names.index("trusted_phi") + 1]:
        doc = nlp.get_pipe(name)(doc)
    return doc


TEXT = (
    "Informe clínico: ingresa en el Hospital Central por dolor. "
    "Trasladada a la UCI del Hospital Central y luego al Fundación Arrieta Kelmar. "
    "Consta en Fundación Arrieta Kelmar y en Zarvento. Vive en Zarvento.\n"
)


def test_hospital_and_institution_from_ner_propagate(rule_nlp):
    doc = run_with_ner(
        rule_nlp,
        TEXT,
        [("HOSPITAL", "Hospital Central", 0), ("INSTITUCION", "Fundación Arrieta Kelmar", 0)],
    )
    assert [
        s for lab, t, s in ents(doc) if (lab, t) == ("HOSPITAL", "Hospital Central")
    ] == occurrences(TEXT, "Hospital Central")
    assert [
        s for lab, t, s in ents(doc) if (lab, t) == ("INSTITUCION", "Fundación Arrieta Kelmar")
    ] == occurrences(TEXT, "Fundación Arrieta Kelmar")


FAMILY_TEXT = (
    "Informe clínico: acude con la cuñada. La cuñada refiere fiebre. "
    "Antecedentes: la cuñada y sus cuñadas, sanas.\n"
)


def test_a_relative_from_ner_propagates(rule_nlp):
    """The gold labels a relative the same way wherever it recurs in a report."""
    doc = run_with_ner(rule_nlp, FAMILY_TEXT, [("FAMILIARES_SUJETO_ASISTENCIA", "cuñada", 0)])
    # the three whole words, not the start of `cuñadas`
    assert [
        s for lab, t, s in ents(doc) if (lab, t) == ("FAMILIARES_SUJETO_ASISTENCIA", "cuñada")
    ] == occurrences(FAMILY_TEXT, "cuñada")[:3]
    assert len(doc.spans["trusted_phi"]) == 2


@pytest.mark.parametrize(
    "label,surface",
    [
        ("TERRITORIO", "Zarvento"),
        ("FECHAS", "Zarvento"),
    ],
)
def test_other_ner_labels_do_not_propagate(rule_nlp, label, surface):
    doc = run_with_ner(rule_nlp, TEXT, [(label, surface, 0)])
    assert [t for _, t, _ in ents(doc)] == [surface]
    assert list(doc.spans["trusted_phi"]) == []


def test_a_relative_takes_no_acronym(rule_nlp):
    """Short names in parentheses are for hospitals and institutions only."""
    text = "Informe clínico: vive con su Unidad Familiar (UF) en casa. La UF lo cuida.\n"
    doc = run_with_ner(rule_nlp, text, [("FAMILIARES_SUJETO_ASISTENCIA", "Unidad Familiar", 0)])
    assert [t for _, t, _ in ents(doc)] == ["Unidad Familiar"]


def test_already_labelled_occurrences_are_not_overwritten(rule_nlp):
    text = (
        "Datos del paciente.\nApellidos: Olmedo Rivas.\n\n"
        "Informe clínico: ingresa en el Hospital Olmedo Rivas. La paciente Olmedo Rivas mejora.\n"
    )
    doc = run_with_ner(rule_nlp, text, [("HOSPITAL", "Hospital Olmedo Rivas", 0)])
    got = ents(doc)
    assert ("HOSPITAL", "Hospital Olmedo Rivas", text.index("Hospital Olmedo")) in got
    assert (
        "NOMBRE_SUJETO_ASISTENCIA",
        "Olmedo Rivas",
        text.index("paciente Olmedo") + len("paciente "),
    ) in got
    assert [t for lab, t, _ in got if lab == "NOMBRE_SUJETO_ASISTENCIA"] == [
        "Olmedo Rivas",
        "Olmedo Rivas",
    ]


def test_longest_trusted_string_wins(rule_nlp):
    text = (
        "Datos del paciente.\nApellidos: Rivas.\n\n"
        "Informe clínico: atendida en el Hospital Rivas Bueno; la señora Rivas mejora.\n"
    )
    doc = run_with_ner(rule_nlp, text, [("HOSPITAL", "Hospital Rivas Bueno", 0)])
    got = ents(doc)
    assert ("HOSPITAL", "Hospital Rivas Bueno", text.index("Hospital Rivas")) in got
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Rivas", text.index("señora Rivas") + len("señora ")) in got
    assert len([1 for _, t, _ in got if t == "Rivas"]) == 2


def test_component_is_stateless(rule_nlp):
    trusted = rule_nlp.get_pipe("trusted_phi")
    a = rule_nlp(
        "Datos del paciente.\nApellidos: Olmedo Rivas.\n\nInforme clínico: Olmedo Rivas.\n"
    )
    assert len(a.spans["trusted_phi"]) == 1
    b = trusted(rule_nlp.make_doc("Informe clínico: Olmedo Rivas."))
    assert list(b.ents) == [] and list(b.spans["trusted_phi"]) == []
    assert isinstance(a.spans["trusted_phi"][0], Span)


@pytest.mark.parametrize(
    "text,ner,expected",
    [
        # an acronym in parentheses after a hospital or institution is its short name ...
        (
            "Informe clínico: remitido al Complejo Hospitalario de Lugo (CHULU). Alta del CHULU.\n",
            [("HOSPITAL", "Complejo Hospitalario de Lugo", 0)],
            [
                ("HOSPITAL", "Complejo Hospitalario de Lugo"),
                ("HOSPITAL", "CHULU"),
                ("HOSPITAL", "CHULU"),
            ],
        ),
        # ... whatever label the NER gave it, and with a hyphen inside
        (
            "Informe clínico: consulta del Instituto Andino del Sueño (IAS-CO) en Lima.\n",
            [("INSTITUCION", "Instituto Andino del Sueño", 0), ("HOSPITAL", "IAS-CO", 0)],
            [("INSTITUCION", "Instituto Andino del Sueño"), ("INSTITUCION", "IAS-CO")],
        ),
        # not a capitalised word, not after a place, not over another label's wider entity
        (
            "Informe clínico: ingresa en el Hospital Central (Planta 3) estable.\n",
            [("HOSPITAL", "Hospital Central", 0)],
            [("HOSPITAL", "Hospital Central")],
        ),
        (
            "Informe clínico: diagnosticada de Colitis Ulcerosa (CU) hace años. Brote de CU.\n",
            [("INSTITUCION", "Colitis Ulcerosa", 0)],
            [("INSTITUCION", "Colitis Ulcerosa")],
        ),
        (
            "Informe clínico: en el Servicio de Salud Mental (CSM) y luego en el CSM.\n",
            [("INSTITUCION", "Servicio de Salud Mental", 0)],
            [("INSTITUCION", "Servicio de Salud Mental")],
        ),
        (
            "Informe clínico: vive en Madrid (ESP) sin fiebre.\n",
            [("TERRITORIO", "Madrid", 0)],
            [("TERRITORIO", "Madrid")],
        ),
        (
            "Informe clínico: ingresa en el Hospital Central (HC) estable.\n",
            [("HOSPITAL", "Hospital Central", 0), ("CALLE", "HC) estable", 0)],
            [("HOSPITAL", "Hospital Central"), ("CALLE", "HC) estable")],
        ),
    ],
)
def test_acronym_after_a_place_takes_its_label(rule_nlp, text, ner, expected):
    doc = run_with_ner(rule_nlp, text, ner)
    assert [(lab, t) for lab, t, _ in ents(doc)] == expected


def test_a_trusted_name_part_alone_is_the_same_person(rule_nlp):
    doc = rule_nlp(
        "Paciente: Lucía Ferrer Ibáñez\n"
        "\n"
        "Evolución: Ferrer refiere mejoría; la Sra. Ibáñez-Gómez no.\n"
    )
    found = [(e.label_, e.text) for e in doc.spans["trusted_phi"]]
    assert ("NOMBRE_SUJETO_ASISTENCIA", "Ferrer") in found
    assert not any(
        t == "Ibáñez" for _, t in found
    )  # only a whole word: `Ibáñez-Gómez` is another name
