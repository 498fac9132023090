"""The side outputs of a run for FHIR and HL7 v2 files: their values listed by path, with the
shared `.ann` (`--interchange-ann`), the private listing (`--private-dir`) and a review page
(`--review`) per file; the files themselves as without these options. All values are invented
(the bundle and messages of the format tests)."""

import json

import pytest
from test_format_fhir import bundle
from test_format_hl7v2 import ADT, ORU
from typer.testing import CliRunner

from meddocan_deid.brat import validate_ann
from meddocan_deid.cli.app import app
from meddocan_deid.deid.review import report_from_files, reports_from_folders

KEY = "clave inventada para las salidas de los ficheros de intercambio"
FHIR_VALUES = ("Zubiarrain", "Eladia", "NHC-778812", "612 334 908", "Olmo Rojo", "1961-03-14")


def invoke(monkeypatch, nlp, *args):
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: nlp)
    return CliRunner().invoke(
        app, ["deidentify", *[str(a) for a in args]], env={"MEDDOCAN_DEID_KEY": KEY}
    )


@pytest.fixture
def source(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    (src / "b.json").write_text(json.dumps(bundle()), "utf-8")
    (src / "mensajes.hl7").write_bytes((ADT + "\r" + ORU + "\r").encode())
    return src


@pytest.fixture
def side_run(monkeypatch, rule_nlp, source, tmp_path):
    out, private, review = (tmp_path / name for name in ("out", "private", "review"))
    result = invoke(
        monkeypatch,
        rule_nlp,
        source,
        out,
        "--mode",
        "surrogate",
        "--interchange-ann",
        "--private-dir",
        private,
        "--review",
        review,
    )
    assert result.exit_code == 0, result.output
    return out, private, review


def listed(text: str) -> set[str]:
    """The path lines of a listing (each block: path, value, blank line)."""
    return {block.split("\n", 1)[0] for block in text.split("\n\n") if block.strip()}


def test_files_are_the_same_with_and_without_side_outputs(
    monkeypatch, rule_nlp, source, side_run, tmp_path
):
    out, _private, _review = side_run
    plain = tmp_path / "plain"
    assert invoke(monkeypatch, rule_nlp, source, plain, "--mode", "surrogate").exit_code == 0
    for name in ("b.json", "mensajes.hl7"):
        assert (out / name).read_bytes() == (plain / name).read_bytes()
    assert not list(plain.glob("*.values.*"))
    assert sorted(p.name for p in out.glob("*.values.*")) == [
        "b.json.values.ann",
        "b.json.values.txt",
        "mensajes.hl7.values.ann",
        "mensajes.hl7.values.txt",
    ]


def test_shared_listing_holds_no_original_value(side_run):
    out, _private, _review = side_run
    shared = (out / "b.json.values.txt").read_text("utf-8")
    for value in FHIR_VALUES:
        assert value not in shared
    validate_ann(shared, (out / "b.json.values.ann").read_text("utf-8"))
    paths = listed(shared)
    assert {
        "Bundle.entry[0].Patient.name[0].family",
        "Bundle.entry[0].Patient.name[0].given[0]",
        "Bundle.entry[0].Patient.birthDate",
        "Bundle.entry[0].Patient.text.div (text 1)",
        "Bundle.entry[1].Encounter.period.start",
        "Bundle.entry[2].DocumentReference.content[0].attachment.data",
    } <= paths
    messages = (out / "mensajes.hl7.values.txt").read_text("utf-8")
    assert "Zubiarrain" not in messages and "612334908" not in messages
    assert {
        "message 1: PID[1].5.1",
        "message 1: NK1[1].2.1",
        "message 2: OBX[1].5(1)",
        "message 2: NTE[1].3",
    } <= listed(messages)


def test_private_listing_pairs_with_the_shared_one(side_run):
    out, private, _review = side_run
    for name in ("b.json", "mensajes.hl7"):
        original = (private / f"{name}.values.txt").read_text("utf-8")
        private_ann = (private / f"{name}.values.ann").read_text("utf-8")
        shared = (out / f"{name}.values.txt").read_text("utf-8")
        shared_ann = (out / f"{name}.values.ann").read_text("utf-8")
        assert listed(original) == listed(shared)
        # T<n> of both .ann name the same value; the text outside them is the same
        report = report_from_files(name, original, private_ann, shared, shared_ann)
        assert len(report.replacements) == private_ann.count("\n")
    original = (private / "b.json.values.txt").read_text("utf-8")
    family = original.index("Bundle.entry[0].Patient.name[0].family\n")
    assert original[family:].split("\n")[1] == "Zubiarrain"
    assert "\tNOMBRE_SUJETO_ASISTENCIA " in (private / "b.json.values.ann").read_text("utf-8")
    notes = (private / "mensajes.hl7.values.txt").read_text("utf-8")
    assert "Avisada la familia de Zubiarrain." in notes  # NTE-3 as it was
    # `meddocan-deid review OUTPUT PRIVATE SITE` rebuilds the pages from the two listings
    rebuilt = {r.id: r for r in reports_from_folders(out, private)}
    assert sorted(rebuilt) == ["b.json.values", "mensajes.hl7.values"]
    assert all(r.ok and r.replacements for r in rebuilt.values())


def test_review_page_per_file(side_run):
    _out, _private, review = side_run
    index = (review / "index.html").read_text("utf-8")
    pages = sorted(p.name for p in (review / "reports").glob("*.html"))
    assert len(pages) == 2 and all(page in index for page in pages)
    page = next((review / "reports").glob("b*.html")).read_text("utf-8")
    assert "Bundle.entry[0].Patient.name[0].family" in page and "Zubiarrain" in page


def test_a_broken_file_is_named_and_gets_no_side_output(monkeypatch, rule_nlp, source, tmp_path):
    (source / "roto.hl7").write_bytes(b"PID|1||X\rMSH|^~\\&|A|B\r")
    out, review = tmp_path / "out", tmp_path / "review"
    result = invoke(
        monkeypatch, rule_nlp, source, out, "--mode", "surrogate", "--interchange-ann",
        "--review", review,
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    report = json.loads((out / "run_report.json").read_text("utf-8"))
    assert report["failed"] == [
        {
            "id": "roto",
            "file": "roto.hl7",
            "reason": "roto.hl7: a segment comes before the first MSH",
        }
    ]
    assert not (out / "roto.hl7.values.txt").exists() and (out / "b.json.values.txt").exists()
    assert "roto.hl7: a segment comes before the first MSH" in (review / "index.html").read_text(
        "utf-8"
    )
