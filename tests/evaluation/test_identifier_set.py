"""The shipped identifier evaluation set (assets/identifiers) and its scorer.

The reports are invented (experiments/make_identifier_set.py); the small hand-made reports
below are invented too.
"""

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import spacy
from stdnum import iban as std_iban
from stdnum.es import ccc as std_ccc
from stdnum.es import dni as std_dni
from stdnum.es import nie as std_nie

from meddocan_deid.brat import BratError, read_text
from meddocan_deid.evaluation.identifiers import read_identifier_set, score_identifiers
from meddocan_deid.id_checks import CHECKS as NATIONAL_CHECKS

ROOT = Path(__file__).resolve().parents[2]
SET_DIR = ROOT / "assets" / "identifiers"
EXPECTED_KINDS = {
    "dni",
    "nie",
    "passport",
    "nhc",
    "cip",
    "nass",
    "episode",
    "iban",
    "ccc",
    "phone",
    "phone_foreign",
    "fax",
    "email",
    "url",
    "ipv4",
    "ipv6",
    "mac",
    "serial",
    "plate",
    "vin",
    "employee",
    "member",
}
# the kinds of the reports of the Americas and the check of each that has one
AMERICAS_KINDS = {
    "curp",
    "rfc",
    "nss_mx",
    "run_cl",
    "dni_ar",
    "cuit",
    "cc_co",
    "nit_co",
    "dni_pe",
    "ruc_pe",
    "ci_ec",
    "ruc_ec",
    "cedula_do",
    "ci_uy",
    "rut_uy",
    "ci_ve",
    "rif_ve",
    "ni_cu",
    "cedula_cr",
    "cedula_other",
    "ssn",
    "mbi",
    "medicaid",
    "affiliation",
    "plan_member",
    "record_americas",
    "phone_national",
    "phone_cc",
}
AMERICAS_CHECKS = {
    "curp": "mx_curp",
    "rfc": "mx_rfc",
    "nss_mx": "mx_nss",
    "run_cl": "cl_run",
    "cuit": "ar_cuit",
    "nit_co": "co_nit",
    "ruc_pe": "pe_ruc",
    "ci_ec": "ec_ci",
    "ruc_ec": "ec_ruc",
    "cedula_do": "do_cedula",
    "ci_uy": "uy_ci",
    "rut_uy": "uy_rut",
    "rif_ve": "ve_rif",
    "ni_cu": "cu_ni",
    "cedula_cr": "cr_cedula",
    "ssn": "us_ssn",
    "mbi": "us_mbi",
}


@pytest.fixture(scope="module")
def docs():
    return read_identifier_set(SET_DIR)


def test_set_parses_and_is_large_enough(docs):
    assert len(docs) >= 80
    assert {i.kind for d in docs for i in d.identifiers} == EXPECTED_KINDS | AMERICAS_KINDS
    assert all(d.identifiers and d.lookalikes and d.gold for d in docs)
    counts = Counter(i.kind for d in docs for i in d.identifiers)
    assert min(counts[kind] for kind in AMERICAS_KINDS) >= 8


def test_shipped_set_is_the_generator_output(tmp_path):
    """The committed files are exactly what the seeded generator writes."""
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "experiments" / "make_identifier_set.py"),
            str(tmp_path),
            "--n-reports",
            "96",
            "--seed",
            "20240",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    shipped = sorted(p.name for p in SET_DIR.glob("idset_*"))
    assert shipped == sorted(p.name for p in tmp_path.iterdir())
    for name in shipped:
        assert (tmp_path / name).read_bytes() == (SET_DIR / name).read_bytes(), name


def test_surface_columns_equal_the_text_at_the_offsets():
    wrapped = 0
    for ann in sorted(SET_DIR.glob("*.ann")):
        text = read_text(ann.with_suffix(".txt"))
        for line in read_text(ann).splitlines():
            if not line.startswith("T"):
                continue
            parts = line.split("\t")
            _, start, end = parts[1].split(" ")
            span = text[int(start) : int(end)]
            assert span == span.strip() and span, (ann.name, line)
            if len(parts) == 3:
                assert parts[2] == span, (ann.name, line)
            else:  # no surface column only where the span crosses a line break
                assert "\n" in span, (ann.name, line)
                wrapped += 1
    assert wrapped >= 3


@pytest.mark.parametrize("section", ["header", "body", "footer"])
def test_every_kind_in_every_section(docs, section):
    kinds = {i.kind for d in docs for i in d.identifiers if i.section == section}
    assert kinds == EXPECTED_KINDS | AMERICAS_KINDS


@pytest.mark.parametrize("kind", sorted(AMERICAS_CHECKS))
def test_checksum_marks_of_the_americas_are_true(docs, kind):
    check = NATIONAL_CHECKS[AMERICAS_CHECKS[kind]]
    marks = Counter()
    for d in docs:
        for i in d.identifiers:
            if i.kind == kind:
                value = d.text[i.start : i.end]
                assert check(value) == (i.valid == "1"), (d.doc_id, i.start)
                marks[i.valid] += 1
    assert marks["1"] >= 3


def test_failed_check_lookalikes_fail_their_check_and_have_no_key(docs):
    seen = Counter()
    for d in docs:
        for item in d.lookalikes:
            if item.kind != "failed_check":
                continue
            kind = item.notes["of"]
            value = d.text[item.start : item.end]
            assert not NATIONAL_CHECKS[AMERICAS_CHECKS[kind]](value), (d.doc_id, item.start)
            # the words before it name no kind (no key): `... la secuencia <value>`
            assert d.text[: item.start].endswith(("la secuencia ", "el código ")), (
                d.doc_id,
                item.start,
            )
            seen[kind] += 1
    assert set(seen) == {
        "curp",
        "rfc",
        "run_cl",
        "cuit",
        "nit_co",
        "ci_ec",
        "cedula_do",
        "ci_uy",
        "rut_uy",
        "rif_ve",
        "ssn",
        "mbi",
    }


def _alnum(value):
    return re.sub(r"[^0-9A-Za-z]", "", value)


def _nass_ok(value):
    digits = _alnum(value)
    return len(digits) == 12 and int(digits[:10]) % 97 == int(digits[10:])


# kind -> validator of the value as written (python-stdnum; NASS: mod 97, stdnum has no NASS)
CHECKS = {
    "dni": lambda v: std_dni.is_valid(_alnum(v)),
    "nie": lambda v: std_nie.is_valid(_alnum(v)),
    "iban": lambda v: std_iban.is_valid(v),
    "ccc": lambda v: std_ccc.is_valid(v),
    "nass": _nass_ok,
}


@pytest.mark.parametrize("kind", sorted(CHECKS))
def test_checksum_marks_are_true(docs, kind):
    marks = Counter()
    for d in docs:
        for i in d.identifiers:
            if i.kind == kind:
                assert i.valid in ("0", "1"), (d.doc_id, i.start)
                assert CHECKS[kind](d.text[i.start : i.end]) == (i.valid == "1"), (
                    d.doc_id,
                    i.start,
                )
                marks[i.valid] += 1
    assert marks["1"] >= 20
    if kind in ("dni", "nie"):  # keyed values with a wrong check letter are planted too
        assert marks["0"] >= 3


def test_kinds_without_checksum_are_marked_na(docs):
    unchecked = set(CHECKS) | set(AMERICAS_CHECKS) | {"dni_pe"}  # a DNI of Peru: either way
    assert {i.valid for d in docs for i in d.identifiers if i.kind not in unchecked} == {"na"}


@pytest.mark.parametrize(
    "kind,labels",
    [
        ("dni", {"ID_SUJETO_ASISTENCIA"}),
        ("nhc", {"ID_SUJETO_ASISTENCIA"}),
        ("cip", {"ID_SUJETO_ASISTENCIA"}),
        ("nass", {"ID_ASEGURAMIENTO"}),
        ("episode", {"ID_CONTACTO_ASISTENCIAL"}),
        ("iban", {"OTROS_SUJETO_ASISTENCIA"}),
        ("ccc", {"OTROS_SUJETO_ASISTENCIA"}),
        ("url", {"URL_WEB", "DIREC_PROT_INTERNET"}),
        ("mac", {"IDENTIF_DISPOSITIVOS_NRSERIE"}),
        ("plate", {"IDENTIF_VEHICULOS_NRSERIE"}),
        ("employee", {"ID_EMPLEO_PERSONAL_SANITARIO"}),
        ("member", {"OTRO_NUMERO_IDENTIF"}),
        ("fax", {"NUMERO_FAX"}),
        ("phone_foreign", {"NUMERO_TELEFONO"}),
    ],
)
def test_labels_follow_the_guidelines(docs, kind, labels):
    seen = set()
    for d in docs:
        for i in d.identifiers:
            if i.kind == kind:
                seen.add(i.label)
                if kind == "url":  # P24.1: with a protocol; P25.1: www.
                    assert (i.label == "DIREC_PROT_INTERNET") == ("://" in d.text[i.start : i.end])
    assert seen == labels


def test_nhc_prefix_is_outside_the_span(docs):
    prefixed = [
        (d, i)
        for d in docs
        for i in d.identifiers
        if i.notes.get("format") in ("nhc_prefix", "cipa_nhc")
    ]
    assert len(prefixed) >= 10
    for d, i in prefixed:
        assert d.text[i.start - 4 : i.start] == "nhc-" and d.text[i.start : i.end].isdigit()


def test_lookalikes_are_not_phi_and_cover_the_types(docs):
    types = Counter(item.kind for d in docs for item in d.lookalikes)
    assert {
        "lab_value",
        "dose",
        "ph",
        "blood_pressure",
        "icd10",
        "size",
        "percentage",
        "time",
    } <= set(types)
    for d in docs:
        for item in d.lookalikes:
            assert not any(s < item.end and item.start < e for _, s, e in d.gold), (
                d.doc_id,
                item.start,
            )


# ---- the scorer on a hand-made report ------------------------------------------------------

TEXT = "DNI: 45873912K. Tel.: 612 345 678. TA 120/80 mmHg."
ANN = (
    "T1\tID_SUJETO_ASISTENCIA 5 14\t45873912K\n"
    "T2\tNUMERO_TELEFONO 22 33\t612 345 678\n"
    "T3\tNO_PHI 38 49\t120/80 mmHg\n"
    "#1\tAnnotatorNotes T1\tkind=dni valid=1 format=plain section=header\n"
    "#2\tAnnotatorNotes T2\tkind=phone valid=na format=mobile section=body\n"
    "#3\tAnnotatorNotes T3\tkind=lookalike type=blood_pressure section=body\n"
)
DNI, PHONE = ("ID_SUJETO_ASISTENCIA", 5, 14), ("NUMERO_TELEFONO", 22, 33)


@pytest.fixture
def small_set(tmp_path):
    (tmp_path / "r1.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "r1.ann").write_text(ANN, encoding="utf-8")
    return read_identifier_set(tmp_path)


@pytest.mark.parametrize(
    "system,found,found_label,covered,hit",
    [
        ([DNI, PHONE], 2, 2, 2, 0),  # the gold itself
        ([], 0, 0, 0, 0),  # nothing
        ([DNI, PHONE, ("FECHAS", 41, 44)], 2, 2, 2, 1),  # part of a look-alike tagged
        ([("NUMERO_TELEFONO", 5, 14)], 1, 0, 1, 0),  # right span, wrong label
        (
            [("NUMERO_TELEFONO", 22, 25), ("NUMERO_TELEFONO", 26, 33)],
            0,
            0,
            1,
            0,
        ),  # split: covered, not found
        ([("ID_SUJETO_ASISTENCIA", 5, 13)], 0, 0, 0, 0),  # the check letter left out: not covered
        ([("OTROS_SUJETO_ASISTENCIA", 0, 34)], 0, 0, 2, 0),  # one wide span covers both
    ],
)
def test_scorer_counts(small_set, system, found, found_label, covered, hit):
    scores = score_identifiers(small_set, {"r1": system})
    overall = scores["overall"]
    assert (overall["n"], overall["found"], overall["found_label"], overall["covered"]) == (
        2,
        found,
        found_label,
        covered,
    )
    assert overall["recall"] == found / 2
    assert scores["lookalikes"] == {
        "n": 1,
        "hit": hit,
        "types": {"blood_pressure": {"n": 1, "hit": hit}},
        "failed_check": {},
    }
    assert set(scores["kinds"]) == {"dni", "phone"}
    assert scores["sections"]["header"]["n"] == 1


def test_scorer_counts_failed_check_lookalikes_per_kind(tmp_path):
    text = "Clave BOXW310820HNERXN08 sin validar."
    (tmp_path / "r1.txt").write_text(text, encoding="utf-8")
    (tmp_path / "r1.ann").write_text(
        "T1\tNO_PHI 6 24\tBOXW310820HNERXN08\n"
        "#1\tAnnotatorNotes T1\tkind=lookalike type=failed_check of=curp country=MX section=body\n",
        encoding="utf-8",
    )
    docs = read_identifier_set(tmp_path)
    tagged = score_identifiers(docs, {"r1": [("OTRO_NUMERO_IDENTIF", 6, 24)]})["lookalikes"]
    assert tagged["failed_check"] == {"curp": {"n": 1, "hit": 1}}
    clean = score_identifiers(docs, {"r1": []})["lookalikes"]
    assert clean["failed_check"] == {"curp": {"n": 1, "hit": 0}}


def test_scorer_precision_uses_the_evaluate_counts(small_set):
    scores = score_identifiers(small_set, {"r1": [DNI, ("ID_SUJETO_ASISTENCIA", 22, 33)]})
    labels = scores["labels"]
    assert labels["ID_SUJETO_ASISTENCIA"]["tp"] == 1 and labels["ID_SUJETO_ASISTENCIA"]["fp"] == 1
    assert labels["ID_SUJETO_ASISTENCIA"]["p"] == 0.5
    assert labels["NUMERO_TELEFONO"]["fn"] == 1 and labels["NUMERO_TELEFONO"]["r"] == 0.0
    # NO_PHI is never gold: two gold entities, one found
    assert (scores["meddocan_s1"]["tp"], scores["meddocan_s1"]["fn"]) == (1, 1)


@pytest.mark.parametrize(
    "bad_ann,line,message",
    [
        (ANN.replace("T3\tNO_PHI 38 49", "T3\tNO_PHI 38 99"), 3, "outside the text"),
        (ANN.replace("#2\tAnnotatorNotes T2\t", "#2\tAnnotatorNotes\t"), 5, "AnnotatorNotes T<k>"),
        (ANN.replace("AnnotatorNotes T2", "AnnotatorNotes T9"), 5, "no earlier T line"),
        (ANN.replace("kind=phone", "phone"), 5, "not key=value"),
        (ANN.replace("kind=phone valid=na", "valid=na"), 5, "without kind="),
    ],
)
def test_malformed_ann_names_file_and_line(tmp_path, bad_ann, line, message):
    (tmp_path / "r1.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "r1.ann").write_text(bad_ann, encoding="utf-8")
    with pytest.raises(BratError, match=rf"r1\.ann:{line}: .*{message}"):
        read_identifier_set(tmp_path)


def test_lookalike_without_note_is_an_error(tmp_path):
    (tmp_path / "r1.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "r1.ann").write_text(
        ANN.replace("#3\tAnnotatorNotes T3\tkind=lookalike type=blood_pressure section=body\n", ""),
        encoding="utf-8",
    )
    with pytest.raises(BratError, match=r"r1\.ann: T3 is NO_PHI"):
        read_identifier_set(tmp_path)


def _run_script(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "evaluate_identifiers.py"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_script_fails_clearly_without_the_set(tmp_path):
    proc = _run_script("unused-model", tmp_path / "missing", "--output", tmp_path / "out.json")
    assert proc.returncode == 1
    assert "missing: no such folder" in proc.stderr
    assert not (tmp_path / "out.json").exists()


def test_script_fails_clearly_on_a_malformed_ann(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    (folder / "r1.txt").write_text(TEXT, encoding="utf-8")
    (folder / "r1.ann").write_text(
        ANN.replace("AnnotatorNotes T2", "AnnotatorNotes T9"), encoding="utf-8"
    )
    spacy.blank("es").to_disk(tmp_path / "model")
    proc = _run_script(tmp_path / "model", folder, "--output", tmp_path / "out.json")
    assert proc.returncode == 1
    assert "r1.ann:5:" in proc.stderr


def test_command_path_end_to_end_with_a_gold_ruler(tmp_path, docs):
    """CI regression check without a trained model: a blank `es` pipeline with the project
    tokenizer and an EntityRuler of the gold surfaces, saved and run through the script.
    Every identifier is token-aligned and found; no look-alike is tagged."""
    nlp = spacy.blank(
        "es", config={"nlp": {"tokenizer": {"@tokenizers": "meddocan_deid.tokenizer.v1"}}}
    )
    ruler = nlp.add_pipe("entity_ruler")
    patterns = sorted({(label, d.text[s:e]) for d in docs for label, s, e in d.gold})
    ruler.add_patterns([{"label": label, "pattern": text} for label, text in patterns])
    nlp.to_disk(tmp_path / "model")
    proc = _run_script(
        tmp_path / "model", SET_DIR, "--output", tmp_path / "metrics" / "identifiers.json"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    scores = json.loads((tmp_path / "metrics" / "identifiers.json").read_text(encoding="utf-8"))
    assert scores["n_docs"] == len(docs)
    overall = scores["overall"]
    assert overall["n"] == sum(len(d.identifiers) for d in docs)
    assert overall["found"] == overall["covered"] == overall["aligned"] == overall["n"]
    assert scores["lookalikes"]["hit"] == 0 and scores["lookalikes"]["n"] > 0
    assert "overall recall (exact span): 100.0%" in proc.stdout
    for kind in EXPECTED_KINDS:
        assert re.search(rf"^{kind}\s+\d+", proc.stdout, re.MULTILINE), kind


def test_rule_pipeline_finds_every_identifier_and_no_lookalike(rule_nlp):
    """Regression check of the shipped rules (configs/pipeline.cfg without the trained NER)
    on the invented set: every identifier found with its gold span and label, in every
    section; no look-alike number covered."""
    from meddocan_deid.evaluation.identifiers import evaluate_identifiers

    scores = evaluate_identifiers(rule_nlp, SET_DIR)
    overall = scores["overall"]
    assert overall["n"] >= 1000
    assert overall["found"] == overall["n"], {
        kind: (v["found"], v["n"]) for kind, v in scores["kinds"].items() if v["found"] < v["n"]
    }
    # every label right: the record numbers of the Americas (`expediente`, `ficha`) too, in
    # the reports of Central America as well (their country detected, so no Spanish key
    # labels them)
    wrong_label = {
        kind: v["found"] - v["found_label"]
        for kind, v in scores["kinds"].items()
        if v["found_label"] < v["found"]
    }
    assert wrong_label == {}, wrong_label
    assert scores["lookalikes"]["hit"] == 0 and scores["lookalikes"]["n"] > 500


def test_code_reports_carry_valid_clinical_codes(docs):
    """The code reports' look-alikes pass their own checks (pipeline/clinical_codes.py), and
    their NHC passes SNOMED CT's checks too: a key must still win."""
    from meddocan_deid.pipeline import clinical_codes as cc

    checks = {
        "snomed": cc.snomed_id,
        "meddra": cc.meddra_code,
        "loinc": cc.loinc_code,
        "eudract": cc.eudract_number,
        "euct": cc.euct_number,
        "nct": cc.nct_number,
        "atc": cc.atc_code,
        # every ICD-10 look-alike of the set follows a cue (`CIE-10`, `codificado como`)
        "icd10": lambda v: cc.icd10_code(v, cued=True),
        "icd10_category": lambda v: cc.icd10_code(v, cued=True),
        "variant": cc.hgvs_variant,
        "karyotype": cc.karyotype,
    }
    codes = [
        (item.kind, d.text[item.start : item.end])
        for d in docs
        for item in d.lookalikes
        if item.kind in checks or item.kind in {"lot", "model", "bed", "room", "ehr"}
    ]
    assert len(codes) >= 500
    assert [c for c in codes if c[0] in checks and not checks[c[0]](c[1])] == []
    code_like = [
        d.text[i.start : i.end]
        for d in docs
        for i in d.identifiers
        if i.notes.get("format") == "code_like"
    ]
    assert len(code_like) == 40 and all(cc.snomed_id(v) for v in code_like)
