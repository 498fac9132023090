"""The learning curve (meddocan_deid.training.learning_curve; its script for the option
checks): nested train samples and dev folds, on invented reports (the run itself is tested after the
workflow, in test_workflow.py)."""

import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from meddocan_deid.training import learning_curve as curve

ROOT = Path(__file__).resolve().parent.parent.parent


def invented_docs(n):
    nlp = spacy.blank("es")
    docs = []
    for i in range(n):
        doc = nlp(f"Informe inventado número {i}.")
        doc.user_data["meddocan_id"] = f"R{i:03d}"
        docs.append(doc)
    return docs


@pytest.mark.parametrize(
    "text,expected",
    [
        ("0.25,0.5,1", [0.25, 0.5, 1.0]),
        ("1", [1.0]),
        (" 0.1 , 0.9 ", [0.1, 0.9]),
        ("", []),
    ],
)
def test_parse_fractions_valid(text, expected):
    assert curve.parse_fractions(text) == expected


@pytest.mark.parametrize(
    "text,message",
    [
        ("0", "--fractions: 0 is not in (0, 1]"),
        ("1.5", "--fractions: 1.5 is not in (0, 1]"),
        ("-0.2", "--fractions: -0.2 is not in (0, 1]"),
        ("half", "--fractions: 'half' is not a number"),
    ],
)
def test_parse_fractions_invalid(text, message):
    with pytest.raises(curve.CurveError) as err:
        curve.parse_fractions(text)
    assert str(err.value) == message


def test_train_samples_nest_and_have_the_share_size():
    docs = invented_docs(20)
    quarter, half, full = (curve.sample(docs, f, seed=0) for f in (0.25, 0.5, 1.0))

    def ids(ds):
        return [d.user_data["meddocan_id"] for d in ds]

    assert (len(quarter), len(half), len(full)) == (5, 10, 20)
    assert ids(half)[:5] == ids(quarter)  # the smaller share is a prefix of the larger
    assert sorted(ids(full)) == sorted(ids(docs))
    assert ids(curve.sample(docs, 0.5, seed=1)) != ids(half)  # the seed picks the sample
    assert len(curve.sample(docs, 0.01, seed=0)) == 1  # never an empty train set


@pytest.mark.parametrize("n,k,sizes", [(10, 2, [5, 5]), (7, 3, [3, 2, 2]), (4, 4, [1, 1, 1, 1])])
def test_dev_folds_partition_the_reports(n, k, sizes):
    docs = invented_docs(n)
    folds = curve.dev_folds(docs, k)
    assert [len(f) for f in folds] == sizes
    seen = [d.user_data["meddocan_id"] for fold in folds for d in fold]
    assert sorted(seen) == sorted(d.user_data["meddocan_id"] for d in docs)  # every report once


@pytest.mark.parametrize(
    "options,message",
    [
        (["--fractions", "2"], "--fractions: 2 is not in (0, 1]"),
        (
            ["--fractions", "0.5", "--dev-folds", "1"],
            "--dev-folds: 1 must be 0 (no row) or at least 2",
        ),
        (
            ["--fractions", "", "--dev-folds", "0"],
            "nothing to train: give --fractions or --dev-folds",
        ),
        (["--fractions", "0.5"], "missing_train.spacy: file not found"),
    ],
)
def test_bad_options_give_one_line_and_write_nothing(tmp_path, options, message):
    table = tmp_path / "curve.md"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "experiments" / "learning_curve.py"),
            "configs/ner.cfg",
            "configs/pipeline.cfg",
            str(tmp_path / "missing_train.spacy"),
            str(tmp_path / "missing_dev.spacy"),
            str(tmp_path / "out"),
            str(table),
            *options,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not table.exists() and not (tmp_path / "out").exists()


def test_a_failed_assembly_is_one_error_naming_the_config(tmp_path):
    with pytest.raises(curve.CurveError) as err:
        curve.assemble(
            tmp_path / "missing.cfg", tmp_path / "ner" / "model-best", tmp_path / "pipeline"
        )
    assert (
        str(err.value) == f"{tmp_path / 'missing.cfg'}: spacy assemble failed around "
        f"{tmp_path / 'ner' / 'model-best'}"
    )
    assert not (tmp_path / "pipeline").exists()
