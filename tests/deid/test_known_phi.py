"""Known identifiers (`known_phi`): found case- and accent-insensitively, IDs with any
separators, names by their parts, in every report of the same patient and only there.
All names and numbers are invented."""

import json
import re

import pytest
import spacy
from command_line import report_counts

from meddocan_deid.deid import Record, deidentify, deidentify_records
from meddocan_deid.deid.known_phi import (
    KnownPhiError,
    find_known,
    pool_by_patient,
    validate_known_phi,
)
from meddocan_deid.engine import run
from meddocan_deid.lexicon import casefold_per_char

KNOWN = {"NOMBRE_SUJETO_ASISTENCIA": ["Ana Ruiz Gil"], "ID_SUJETO_ASISTENCIA": ["45873912K"]}


def found(text, known=KNOWN):
    return [
        (label, text[s:e]) for label, s, e in sorted(find_known(text, known), key=lambda x: x[1])
    ]


def test_fold_is_one_character_per_character():
    text = "ÁNGELA Muñoz Straße İlker ﬁn"
    assert len(casefold_per_char(text)) == len(text)
    assert casefold_per_char("ÁNGELA Muñoz") == "angela munoz"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Paciente ANA RUIZ GIL, 45 años.", [("NOMBRE_SUJETO_ASISTENCIA", "ANA RUIZ GIL")]),
        ("Paciente Ána Ruíz Gil.", [("NOMBRE_SUJETO_ASISTENCIA", "Ána Ruíz Gil")]),
        ("La Sra. Ruiz refiere dolor.", [("NOMBRE_SUJETO_ASISTENCIA", "Ruiz")]),
        ("Ana acude sola.", [("NOMBRE_SUJETO_ASISTENCIA", "Ana")]),
        ("Sra. RUIZ-GIL.", [("NOMBRE_SUJETO_ASISTENCIA", "RUIZ-GIL")]),
        ("Dña. Ruiz Gil y su hija.", [("NOMBRE_SUJETO_ASISTENCIA", "Ruiz Gil")]),
        ("Anatomía patológica de Gilberto.", []),  # whole words only
        ("DNI 45.873.912-K", [("ID_SUJETO_ASISTENCIA", "45.873.912-K")]),
        (
            "DNI 45873912-k, otra vez 45 873 912 K.",
            [("ID_SUJETO_ASISTENCIA", "45873912-k"), ("ID_SUJETO_ASISTENCIA", "45 873 912 K")],
        ),
        ("Ref. 145873912K9", []),  # inside a longer number: not this ID
    ],
)
def test_find_known(text, expected):
    assert found(text) == expected


@pytest.mark.parametrize(
    "name,text,expected",
    [
        ("María de la Fuente", "Visita de la Sra. de la Fuente.", ["Fuente"]),
        ("María de la Fuente", "María de la Fuente acude.", ["María de la Fuente"]),
        ("Luis del Olmo y Gasset", "Avisado el Sr. Olmo y Gasset.", ["Olmo y Gasset"]),
        (
            "Eva Sol",
            "Eva Sol llega. El sol brilla.",
            ["Eva Sol", "sol"],
        ),  # `Sol` has 3 letters: found alone too
        ("Eva Sol", "Hace sol.", ["sol"]),
        (
            "Li Po",
            "Li Po y la pomada.",
            ["Li Po"],
        ),  # parts of fewer than 3 letters are never searched alone
    ],
)
def test_name_parts(name, text, expected):
    assert [t for _l, t in found(text, {"NOMBRE_SUJETO_ASISTENCIA": [name]})] == expected


def test_known_wins_over_overlapping_ner_entities():
    text = "Paciente Ana Ruiz Gil, DNI 45.873.912-K, en Madrid."
    ner = [
        ("NOMBRE_SUJETO_ASISTENCIA", text.index("Ruiz"), text.index("Ruiz") + len("Ruiz Gil")),
        ("NUMERO_TELEFONO", text.index("912-K"), text.index("912-K") + 5),
        ("TERRITORIO", text.index("Madrid"), text.index("Madrid") + 6),
    ]
    nlp = spacy.blank("es")
    doc = nlp(text)
    doc.ents = [doc.char_span(s, e, label=lab, alignment_mode="expand") for lab, s, e in ner]
    result = deidentify(doc, mode="tag", known_phi=KNOWN)
    assert (
        result.text
        == "Paciente [NOMBRE_SUJETO_ASISTENCIA], DNI [ID_SUJETO_ASISTENCIA], en [TERRITORIO]."
    )
    assert [(r.label, text[r.start : r.end]) for r in result.replacements] == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil"),
        ("ID_SUJETO_ASISTENCIA", "45.873.912-K"),
        ("TERRITORIO", "Madrid"),
    ]


@pytest.mark.parametrize(
    "text,entity,expected",
    [
        (
            "Ana Ruiz Gil Pérez",
            ("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil Pérez"),
            [("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil Pérez")],
        ),
        # a surname inside a relative's name or an e-mail address: that entity already covers it
        (
            "su hijo Luis Ruiz Gil",
            ("FAMILIARES_SUJETO_ASISTENCIA", "Luis Ruiz Gil"),
            [("FAMILIARES_SUJETO_ASISTENCIA", "Luis Ruiz Gil")],
        ),
        (
            "escribe a ana.ruiz@correo.test",
            ("CORREO_ELECTRONICO", "ana.ruiz@correo.test"),
            [("CORREO_ELECTRONICO", "ana.ruiz@correo.test")],
        ),
        # the same extent with another label: relabelled
        ("Sra. Ruiz Gil", ("TERRITORIO", "Ruiz Gil"), [("NOMBRE_SUJETO_ASISTENCIA", "Ruiz Gil")]),
        # a partial overlap: the detected span keeps its part outside
        (
            "Ana Ruiz Gil Montes vino",
            ("NOMBRE_PERSONAL_SANITARIO", "Gil Montes"),
            [("NOMBRE_SUJETO_ASISTENCIA", "Ana Ruiz Gil"), ("NOMBRE_PERSONAL_SANITARIO", "Montes")],
        ),
    ],
)
def test_known_inside_or_across_detected_entities(text, entity, expected):
    from meddocan_deid.deid.known_phi import add_known

    start = text.index(entity[1])
    spans = add_known(
        text,
        [(entity[0], start, start + len(entity[1]))],
        {"NOMBRE_SUJETO_ASISTENCIA": ["Ana Ruiz Gil"]},
    )
    assert [(lab, text[s:e]) for lab, s, e in spans] == expected


@pytest.mark.parametrize(
    "value,message",
    [
        (["Ana"], "must be an object label -> list of strings"),
        ({"NOMBRE": ["Ana"]}, "unknown label 'NOMBRE'"),
        ({"NOMBRE_SUJETO_ASISTENCIA": [3]}, "NOMBRE_SUJETO_ASISTENCIA must be a list of strings"),
        ({"NOMBRE_SUJETO_ASISTENCIA": {"a": "b"}}, "must be a list of strings"),
        ("{not json", "'known_phi' is not valid JSON"),
    ],
)
def test_invalid_known_phi(value, message):
    with pytest.raises(KnownPhiError, match=re.escape(message)) as err:
        validate_known_phi(value, "input.jsonl:7")
    assert str(err.value).startswith("input.jsonl:7: ")


def test_valid_known_phi_forms():
    assert validate_known_phi(None) == {}
    assert validate_known_phi('{"FECHAS": "01/02/2003"}') == {"FECHAS": ["01/02/2003"]}
    assert validate_known_phi({"NOMBRE_SUJETO_ASISTENCIA": ["Ana", " "]}) == {
        "NOMBRE_SUJETO_ASISTENCIA": ["Ana"]
    }
    pooled = pool_by_patient(
        [("p1", {"FECHAS": ["a"]}), ("p1", {"FECHAS": ["b", "a"]}), (None, {"FECHAS": ["c"]})]
    )
    assert pooled == {"p1": {"FECHAS": ["a", "b"]}}


def ruler_nlp():
    nlp = spacy.blank("es")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "TERRITORIO", "pattern": "Toledo"}])
    return nlp


REPORTS = [
    {
        "id": "r1",
        "patient_id": "p1",
        "text": "Paciente: Ana Ruiz Gil. DNI: 45873912K. Vive en Toledo.",
        "known_phi": KNOWN,
    },
    {"id": "r2", "patient_id": "p1", "text": "Control de la Sra. RUIZ, DNI 45.873.912-k."},
    {"id": "r3", "patient_id": "p2", "text": "Control de la Sra. Ruiz, DNI 45.873.912-K."},
    {"id": "r4", "text": "Sin paciente: Ruiz."},
]


def test_jsonl_known_phi_reaches_the_same_patient_only(tmp_path):
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in REPORTS), encoding="utf-8"
    )
    out = tmp_path / "out"
    report = run(inp, out, "tag", None, nlp=ruler_nlp(), progress=False)
    assert report["reports"] == report_counts(4, 4)
    texts = {r["id"]: (out / f"{r['id']}.txt").read_text(encoding="utf-8") for r in REPORTS}
    assert texts["r1"] == (
        "Paciente: [NOMBRE_SUJETO_ASISTENCIA]. DNI: [ID_SUJETO_ASISTENCIA]. Vive en [TERRITORIO]."
    )
    assert (
        texts["r2"] == "Control de la Sra. [NOMBRE_SUJETO_ASISTENCIA], DNI [ID_SUJETO_ASISTENCIA]."
    )
    assert texts["r3"] == REPORTS[2]["text"]  # another patient: nothing known
    assert texts["r4"] == REPORTS[3]["text"]
    assert report["phi_per_label"] == {
        "ID_SUJETO_ASISTENCIA": 2,
        "NOMBRE_SUJETO_ASISTENCIA": 2,
        "TERRITORIO": 1,
    }


def test_jsonl_bad_known_phi_fails_that_record_naming_file_and_line(tmp_path):
    inp = tmp_path / "in.jsonl"
    rows = [
        REPORTS[1],
        {"id": "bad", "patient_id": "p1", "text": "Texto.", "known_phi": {"NOMBRE": ["Ana"]}},
    ]
    inp.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    report = run(inp, tmp_path / "out", "tag", None, nlp=ruler_nlp(), progress=False)
    assert report["reports"]["failed"] == 1
    assert report["failed"][0]["id"] == "bad"
    assert report["failed"][0]["reason"].startswith(
        "in.jsonl:2: 'known_phi' has an unknown label 'NOMBRE'"
    )


def test_records_carry_known_phi_in_the_batch_core():
    nlp = ruler_nlp()
    results = list(
        deidentify_records(
            nlp,
            [
                Record("a", "Ana vino.", "p9", {"NOMBRE_SUJETO_ASISTENCIA": ["Ana Gil"]}),
                Record("b", "Ana vino.", "p8"),
            ],
            "tag",
            None,
        )
    )
    assert [r.text for r in results] == ["[NOMBRE_SUJETO_ASISTENCIA] vino.", "Ana vino."]
    assert results[0].phi == [("NOMBRE_SUJETO_ASISTENCIA", 0, 3)]


def test_known_phi_of_a_label_that_the_policy_turns_off_is_ignored():
    from meddocan_deid.deid.policy import parse_policy

    nlp = spacy.blank("es")
    doc = nlp("Ana vino el 01/02/2003.")
    result = deidentify(
        doc,
        mode="tag",
        known_phi={"FECHAS": ["01/02/2003"], "NOMBRE_SUJETO_ASISTENCIA": ["Ana"]},
        policy=parse_policy({"labels": {"FECHAS": False}}),
    )
    assert result.text == "[NOMBRE_SUJETO_ASISTENCIA] vino el 01/02/2003."


def test_known_phi_eval_counts_body_and_footer_mentions():
    from meddocan_deid.evaluation.known_phi import KnownPhiReport, format_report, measure_doc

    text = (
        "Nombre: Pedro Alba Soto. NHC: 7712345.\n"
        "El Sr. Alba acude con NHC 77-12345 y su hijo Pedro.\n"
        "Firma: Dra. Sierra."
    )
    nlp = spacy.blank("es")
    doc = nlp(text)
    body_start = text.index("El Sr.")
    footer_start = text.index("Firma")
    sections = []
    for label, s, e in (
        ("header", 0, body_start),
        ("body", body_start, footer_start),
        ("footer", footer_start, len(text)),
    ):
        sections.append(doc.char_span(s, e, label=label, alignment_mode="expand"))
    doc.spans["sections"] = sections

    def at(surface, label, nth=0):
        start = -1
        for _ in range(nth + 1):
            start = text.index(surface, start + 1)
        return (label, start, start + len(surface))

    gold = [
        at("Pedro Alba Soto", "NOMBRE_SUJETO_ASISTENCIA"),
        at("7712345", "ID_SUJETO_ASISTENCIA"),
        at("Alba", "NOMBRE_SUJETO_ASISTENCIA", 1),
        at("77-12345", "ID_SUJETO_ASISTENCIA"),
        at("Sierra", "NOMBRE_PERSONAL_SANITARIO"),
    ]
    predicted = [gold[0], gold[1], gold[4]]
    doc.ents = [doc.char_span(s, e, label=lab) for lab, s, e in predicted]
    report = KnownPhiReport()
    measure_doc(doc, gold, report)
    name, ids = report.groups["name"], report.groups["id"]
    assert (name.mentions, name.covered_before, name.covered_after, name.exact_after) == (
        1,
        0,
        1,
        1,
    )
    assert (ids.mentions, ids.findable, ids.covered_before, ids.covered_after) == (1, 1, 0, 1)
    # `Pedro` (the son) is found too: a span that overlaps no gold entity
    assert report.added_spans == 3 and report.added_off_gold == 1
    table = format_report(report)
    assert "Pedro" not in table and "Alba" not in table


def test_spark_known_phi_column_and_policy(tmp_path):
    pytest.importorskip("pyspark")
    pytest.importorskip("pyarrow")
    from pyspark.sql import SparkSession

    from meddocan_deid.deid.policy import parse_policy
    from meddocan_deid.deid.tables import TableSpec
    from meddocan_deid.engine import Run, RunConfig, SparkJob
    from meddocan_deid.spark import deidentify_dataframe, make_session

    model = tmp_path / "ruler"
    ruler_nlp().to_disk(model)
    # the Spark tests' session (`spark` of tests/conftest.py) may be running: use it, leave it
    active = SparkSession.getActiveSession()
    spark = make_session(
        "local[1]",
        app_name="meddocan-known-phi-tests",
        conf={"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "1"},
    )
    try:
        rows = [
            (
                r["id"],
                r.get("patient_id"),
                r["text"],
                json.dumps(r["known_phi"]) if "known_phi" in r else None,
            )
            for r in REPORTS
        ]
        rows.append(("r5", "p3", "Texto de Eva.", '{"NOMBRE": ["Eva"]}'))
        df = spark.createDataFrame(
            rows, "id string, patient_id string, text string, known_phi string"
        )
        policy = parse_policy({"operators": {"TERRITORIO": "keep"}})
        out = deidentify_dataframe(
            df,
            "tag",
            model=str(model),
            patient_col="patient_id",
            known_col="known_phi",
            policy=policy,
        )
        assert out.columns == [
            "id",
            "patient_id",
            "deid_text",
            "phi",
            "status",
        ]  # known_phi never goes out
        got = {r["id"]: (r["deid_text"], r["status"]) for r in out.collect()}
        assert (
            got["r1"][0]
            == "Paciente: [NOMBRE_SUJETO_ASISTENCIA]. DNI: [ID_SUJETO_ASISTENCIA]. Vive en Toledo."
        )
        assert (
            got["r2"][0]
            == "Control de la Sra. [NOMBRE_SUJETO_ASISTENCIA], DNI [ID_SUJETO_ASISTENCIA]."
        )
        assert got["r3"][0] == REPORTS[2]["text"] and got["r4"][0] == REPORTS[3]["text"]
        assert got["r5"] == (
            None,
            "failed: 'known_phi' has an unknown label 'NOMBRE' (expected one of the "
            "MEDDOCAN labels, e.g. NOMBRE_SUJETO_ASISTENCIA)",
        )
        # a map column works as a JSON string does
        mdf = spark.createDataFrame(
            [
                ("m1", "p1", "Ana vino.", {"NOMBRE_SUJETO_ASISTENCIA": ["Ana Gil"]}),
                ("m2", "p1", "Gil vino.", None),
            ],
            "id string, patient_id string, text string, known_phi map<string,array<string>>",
        )
        got = {
            r["id"]: r["deid_text"]
            for r in deidentify_dataframe(
                mdf, "tag", model=str(model), patient_col="patient_id", known_col="known_phi"
            ).collect()
        }
        assert got == {
            "m1": "[NOMBRE_SUJETO_ASISTENCIA] vino.",
            "m2": "[NOMBRE_SUJETO_ASISTENCIA] vino.",
        }
        # the run layer's Spark path (the CLI's): JSONL rows, the policy from options
        inp = tmp_path / "in.jsonl"
        inp.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in REPORTS[:3]), encoding="utf-8"
        )
        config = RunConfig(
            input=str(inp),
            output=str(tmp_path / "out"),
            mode="tag",
            model=str(model),
            options=policy.apply(),
            table=TableSpec(id_column="id", text_columns=("text",), status_column="deid_status"),
            spark=SparkJob(output_format="jsonl", partitions=1),
        )
        report = Run(config, spark=spark).execute_report()
        assert report.rows == {"in": 3, "out": 3, "ok": 3, "failed": 0}
        written = {}
        for part in (tmp_path / "out").glob("part-*"):
            for line in part.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                written[row["id"]] = row["deid_text"]
        assert (
            written["r2"]
            == "Control de la Sra. [NOMBRE_SUJETO_ASISTENCIA], DNI [ID_SUJETO_ASISTENCIA]."
        )
        assert written["r1"].endswith("Vive en Toledo.")
    finally:
        if active is None:
            spark.stop()
