"""Format augmentation (meddocan_deid.training.augment, scripts/augment.py) on invented
reports in the MEDDOCAN template: copies keep every gold entity (label, text up to
case), are seeded, and show each layout."""

import collections
import subprocess
import sys
from pathlib import Path

import pytest
from spacy.tokens import DocBin

from meddocan_deid.evaluation.results import ID_KEY
from meddocan_deid.pipeline.tokenizer import blank_pipeline
from meddocan_deid.training.augment import (
    AUGMENT_KEY,
    FOOTER_LAYOUTS,
    HEADER_LAYOUTS,
    NAME_MODES,
    Augmenter,
    AugmentError,
    Resources,
    augment_docs,
    layout_counts,
    parse_header,
)

ROOT = Path(__file__).resolve().parent.parent.parent
RESOURCES = ROOT / "configs" / "augment"
SECTIONS = ROOT / "configs" / "patterns" / "sections.jsonl"

# Invented reports: (text with [value|LABEL] marks, id)
REPORTS = [
    (
        "inv-1",
        "Datos del paciente.\n"
        "Nombre:  [Lucía|NOMBRE_SUJETO_ASISTENCIA].\n"
        "Apellidos: [Berrocal Zafra|NOMBRE_SUJETO_ASISTENCIA].\n"
        "NHC: [7712034|ID_SUJETO_ASISTENCIA].\n"
        "NASS: [41 11223344 55|ID_ASEGURAMIENTO].\n"
        "Domicilio: [Calle del Olmo Seco, 12|CALLE].\n"
        "Localidad/ Provincia: [Villafría|TERRITORIO], [Burgos|TERRITORIO].\n"
        "CP: [09199|TERRITORIO].\n"
        "Datos asistenciales.\n"
        "Fecha de nacimiento: [03/04/1961|FECHAS].\n"
        "País: [España|PAIS].\n"
        "Edad: [58 años|EDAD_SUJETO_ASISTENCIA] Sexo: [M|SEXO_SUJETO_ASISTENCIA].\n"
        "Fecha de Ingreso: [11/02/2019|FECHAS].\n"
        "Servicio: Neumología.\n"
        "Médico: [Tomás Arriaga Pellicer|NOMBRE_PERSONAL_SANITARIO]  NºCol: [09 09 "
        "12345|ID_TITULACION_PERSONAL_SANITARIO].\n"
        "Informe clínico del paciente: [Mujer|SEXO_SUJETO_ASISTENCIA] de [58 "
        "años|EDAD_SUJETO_ASISTENCIA] con tos de tres semanas.\n"
        "En la radiografía se aprecia un infiltrado basal derecho.\n"
        "Se pauta antibiótico y mejora en una semana.\n"
        "Remitido por: Dr. [Tomás Arriaga Pellicer|NOMBRE_PERSONAL_SANITARIO]. Servicio de "
        "Neumología. "
        "[Hospital Comarcal del Arlanza|HOSPITAL]. [Avenida de los Tilos, 4|CALLE]. "
        "[09199|TERRITORIO] "
        "[Villafría|TERRITORIO] ([España|PAIS]). Teléfono: [947 000 111|NUMERO_TELEFONO]. "
        "Correo electrónico: [tarriaga@invented.es|CORREO_ELECTRONICO]\n",
    ),
    (
        "inv-2",
        "Datos del paciente.\n"
        "Nombre: [Bruno|NOMBRE_SUJETO_ASISTENCIA].\n"
        "Apellidos: [Quintanilla Oter|NOMBRE_SUJETO_ASISTENCIA].\n"
        "NHC: [5520981|ID_SUJETO_ASISTENCIA].\n"
        "Domicilio: [Plaza Mayor, 7|CALLE].\n"
        "Localidad/ Provincia: [Tordesecas|TERRITORIO].\n"
        "CP: [47001|TERRITORIO].\n"
        "Datos asistenciales.\n"
        "Fecha de nacimiento: [21/09/1990|FECHAS].\n"
        "País de nacimiento: [Portugal|PAIS].\n"
        "Edad: [29 años|EDAD_SUJETO_ASISTENCIA] Sexo: [H|SEXO_SUJETO_ASISTENCIA].\n"
        "Fecha de Ingreso: [02/01/2020|FECHAS].\n"
        "Episodio: [88123|ID_CONTACTO_ASISTENCIAL].\n"
        "Médico: [Irene Sáez Gorostiza|NOMBRE_PERSONAL_SANITARIO] NºCol: [47 47 "
        "54321|ID_TITULACION_PERSONAL_SANITARIO].\n"
        "Historia Actual: [Varón|SEXO_SUJETO_ASISTENCIA] de [29 años|EDAD_SUJETO_ASISTENCIA] que "
        "consulta por dolor lumbar.\n"
        "Exploración sin hallazgos.\n"
        "Remitido por: Dra. [Irene Sáez Gorostiza|NOMBRE_PERSONAL_SANITARIO] "
        "Correo electrónico: [isaez@invented.org|CORREO_ELECTRONICO]\n",
    ),
]


def make_gold(nlp, doc_id, marked):
    import re

    text, ents, pos = "", [], 0
    for m in re.finditer(r"\[([^|\]]+)\|([A-Z_]+)\]", marked):
        text += marked[pos : m.start()]
        ents.append((len(text), len(text) + len(m.group(1)), m.group(2)))
        text += m.group(1)
        pos = m.end()
    text += marked[pos:]
    doc = nlp.make_doc(text)
    spans = [doc.char_span(s, e, label=label) for s, e, label in ents]
    assert all(span is not None for span in spans), "invented gold must align"
    doc.ents = spans
    doc.user_data[ID_KEY] = doc_id
    return doc


@pytest.fixture(scope="module")
def nlp():
    return blank_pipeline()


@pytest.fixture(scope="module")
def resources():
    return Resources.from_dir(RESOURCES, SECTIONS)


@pytest.fixture(scope="module")
def gold(nlp):
    return [make_gold(nlp, doc_id, marked) for doc_id, marked in REPORTS]


def many_copies(nlp, resources, gold, seeds=range(40)):
    out = []
    for seed in seeds:
        augmenter = Augmenter(nlp, resources, seed=seed)
        for index, doc in enumerate(gold):
            out.append((doc, next(augmenter.copies(doc, 1, index))))
    return out


def ent_keys(doc):
    return collections.Counter((e.label_, e.text.casefold()) for e in doc.ents)


def test_every_entity_is_a_gold_entity_and_none_is_lost(nlp, resources, gold):
    for original, copy in many_copies(nlp, resources, gold):
        info = copy.user_data[AUGMENT_KEY]
        orig, new = ent_keys(original), ent_keys(copy)
        assert set(new) <= set(orig), info
        assert info["dropped"] == 0
        # gold entities all kept; the only extra ones are the sentences' (counted)
        assert not orig - new, info
        assert sum((new - orig).values()) == info["added"]
        assert len(copy.ents) == len(original.ents) + info["added"] - info["dropped"]
        assert {e.label_ for e in copy.ents} <= {e.label_ for e in original.ents}


def test_body_lines_are_kept_in_order(nlp, resources, gold):
    for original, copy in many_copies(nlp, resources, gold, seeds=range(10)):
        body = [
            line
            for line in original.text.split("\n")[:-1]
            if line.startswith(
                ("Informe clínico", "Historia Actual", "En la ", "Se pauta", "Exploración sin")
            )
        ]
        lines = copy.text.split("\n")
        positions = [lines.index(line) for line in body]
        assert positions == sorted(positions)


def test_same_seed_same_output_other_seed_differs(nlp, resources, gold):
    def run(seed):
        augmenter = Augmenter(nlp, resources, seed=seed)
        docs = [d for d, _ in augment_docs(gold, augmenter, 2)]
        return [
            (
                d.text,
                [(e.start_char, e.end_char, e.label_) for e in d.ents],
                d.user_data.get(AUGMENT_KEY),
            )
            for d in docs
        ]

    first = run(3)
    assert len(first) == 3 * len(gold)
    assert first == run(3)
    assert first != run(4)
    # the originals come through unchanged, each before its copies
    assert [first[0][0], first[3][0]] == [d.text for d in gold]


def test_layouts_occur_and_show_in_the_text(nlp, resources, gold):
    pairs = many_copies(nlp, resources, gold)
    counts = layout_counts(copy for _, copy in pairs)
    assert set(counts["header"]) == set(HEADER_LAYOUTS)
    assert set(counts["footer"]) == set(FOOTER_LAYOUTS)
    assert set(counts["names"]) == set(NAME_MODES)
    assert counts["order"]["shuffled"] and counts["order"]["original"]
    assert counts["moved_below"][True] and counts["moved_below"][False]
    assert set(counts["prose"]) == {"salutation", "patient", "staff"}
    assert sum(n for titles, n in counts["titles"].items() if titles > 0)
    assert counts["footer_ncol_moved"][True]
    for _original, copy in pairs:
        info = copy.user_data[AUGMENT_KEY]
        start, end = info["header_chars"]
        head = copy.text[start:end]
        if info["header"] == "tab":
            assert "\t" in head
        if info["header"] == "table":
            assert " | " in head
        if info["header"] == "caps":
            header_ents = [
                e
                for e in copy.ents
                if start <= e.start_char and e.end_char <= end and any(c.isalpha() for c in e.text)
            ]
            assert header_ents and all(e.text == e.text.upper() for e in header_ents)
        if info["header"] == "stacked":
            keys = set(sum(resources.keys.values(), []))
            assert (
                sum(line.rstrip(":") in keys for line in head.split("\n")) >= 5
            )  # keys on lines of their own
        if info["names"] == "reversed" and info["header"] != "table":
            assert any(
                e.text.casefold() in ("berrocal zafra", "quintanilla oter")
                and copy.text[e.end_char : e.end_char + 2] == ", "
                for e in copy.ents
            )
        tail = copy.text.casefold()
        if info["footer"] == "signed_electronically":
            assert "firmado electrónicamente" in tail
        if info["footer"] == "regards":
            assert any(w in tail for w in ("atentamente", "un saludo"))
        if info["footer"] == "signature":
            assert "remitido por" not in tail
        if info["footer"] == "original":
            assert "remitido por" in tail


def test_parse_header_splits_keys_and_joins_values(nlp, gold):
    doc = gold[0]
    header_end = doc.text.index("Informe clínico")
    fields = parse_header(
        doc.text, [(e.start_char, e.end_char, e.label_) for e in doc.ents], header_end
    )
    by_key = {f.key: f for f in fields}
    assert [t for t, lab in by_key["Edad"].value] == ["58 años"]
    assert [t for t, lab in by_key["Sexo"].value] == ["M"]
    assert [lab for _, lab in by_key["Localidad/ Provincia"].value] == [
        "TERRITORIO",
        None,
        "TERRITORIO",
    ]
    assert by_key["Servicio"].value == [("Neumología", None)]
    assert by_key["Datos del paciente"].title and not by_key["Datos del paciente"].value
    assert [t for t, _ in by_key["NºCol"].value] == ["09 09 12345"]
    assert sum(len(f.entities) for f in fields) == sum(
        1 for e in doc.ents if e.end_char <= header_end
    )


def test_bad_resources_name_the_file_and_line(tmp_path):
    with pytest.raises(AugmentError, match="header_keys.jsonl: file not found"):
        Resources.from_dir(tmp_path, SECTIONS)
    (tmp_path / "header_keys.jsonl").write_text(
        (RESOURCES / "header_keys.jsonl").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "phrases.jsonl").write_text(
        '{"kind": "title", "text": "X"}\n{"kind": "nope", "text": "Y"}\n', encoding="utf-8"
    )
    with pytest.raises(AugmentError, match=r"phrases.jsonl:2: needs 'kind'"):
        Resources.from_dir(tmp_path, SECTIONS)


def test_script_writes_originals_and_copies(nlp, gold, tmp_path):
    db = DocBin(store_user_data=True)
    for doc in gold:
        db.add(doc)
    db.to_disk(tmp_path / "train.spacy")

    def run(output, seed):
        result = subprocess.run(
            [
                sys.executable,
                str(ROOT / "scripts" / "augment.py"),
                str(tmp_path / "train.spacy"),
                str(output),
                "--copies",
                "2",
                "--seed",
                str(seed),
                "--resources",
                str(RESOURCES),
                "--sections",
                str(SECTIONS),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout, [d.text for d in DocBin().from_disk(output).get_docs(nlp.vocab)]

    out, texts = run(tmp_path / "a.spacy", 7)
    assert f"{len(gold) * 3} docs ({len(gold)} originals, {len(gold) * 2} copies, seed 7)" in out
    assert "dropped as unaligned: 0" in out
    assert "header:" in out and "footer:" in out
    assert texts[0] == gold[0].text and texts[3] == gold[1].text
    assert len(set(texts)) == len(texts)  # two different copies of each report
    bad = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "augment.py"),
            str(tmp_path / "none.spacy"),
            str(tmp_path / "c.spacy"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert bad.returncode == 1 and "none.spacy: DocBin not found" in bad.stderr
