"""meddocan_deid.evaluation.package_meta, used by scripts/package.py: the meta.json it gives `spacy
package` carries the dev scores of the metrics files, the data sources with their licence, and the
requirements. Invented scores."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

import meddocan_deid
from meddocan_deid.evaluation import package_meta as package

ROOT = Path(__file__).resolve().parents[2]

DEV = {
    "meddocan_s1_p": 0.91,
    "meddocan_s1_r": 0.82,
    "meddocan_s1_f": 0.8626,
    "meddocan_s1_leak": 0.031,
    "meddocan_s2_strict_p": 0.93,
    "meddocan_s2_strict_r": 0.84,
    "meddocan_s2_strict_f": 0.8827,
    "meddocan_s2_merged_p": 0.95,
    "meddocan_s2_merged_r": 0.86,
    "meddocan_s2_merged_f": 0.9027,
    "meddocan_s1_per_type": {"FECHAS": {"p": 1.0}},
    "speed": {"docs": 3},
}
SPACY_EVAL = {"ents_p": 0.88, "ents_r": 0.8, "ents_f": 0.8381, "token_acc": 1.0}


def write(path, data):
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_performance_takes_the_scores_of_both_files(tmp_path):
    perf = package.read_performance(
        [write(tmp_path / "dev.json", DEV), write(tmp_path / "spacy.json", SPACY_EVAL)]
    )
    assert perf["meddocan_s1_f"] == 0.8626
    assert perf["meddocan_s1_leak"] == 0.031
    assert perf["meddocan_s2_strict_f"] == 0.8827
    assert perf["meddocan_s2_merged_f"] == 0.9027
    assert perf["ents_f"] == 0.8381
    # only flat scores: no per-type table, speed or other spaCy keys
    assert "meddocan_s1_per_type" not in perf and "speed" not in perf and "token_acc" not in perf


@pytest.mark.parametrize(
    "content,message",
    [
        (None, "metrics file not found"),
        ("{not json", "not valid JSON"),
        ("[0.9]", "expected a JSON object"),
        (json.dumps({"ents_f": 0.9}), "no meddocan_s1_p, meddocan_s1_r, meddocan_s1_f"),
        (
            json.dumps({"meddocan_s1_p": "0.9", "meddocan_s1_r": 0.9, "meddocan_s1_f": 0.9}),
            "no meddocan_s1_p",
        ),
    ],
)
def test_bad_metrics_file_is_named(tmp_path, content, message):
    path = tmp_path / "dev.json"
    if content is not None:
        write(path, content)
    with pytest.raises(ValueError) as err:
        package.read_performance([path])
    assert str(path) in str(err.value) and message in str(err.value)


def test_no_metrics_file_gives_no_performance():
    assert package.read_performance([]) == {}


def test_meta_names_sources_licence_and_requirements():
    meta = package.build_meta("1.4.2", {"meddocan_s1_f": 0.9})
    assert meta["requirements"] == ["meddocan-deid>=1.4.2,<1.5.0"]
    assert meta["performance"] == {"meddocan_s1_f": 0.9}
    corpus = meta["sources"][0]
    assert corpus["url"] == "https://github.com/PlanTL-GOB-ES/SPACCC_MEDDOCAN"
    assert corpus["license"] == "CC BY 4.0"
    assert any("gazetteer" in source["name"] for source in meta["sources"])
    assert "Spanish clinical reports" in meta["description"]
    # `spacy info` does not print "performance": the headline scores are in the description
    assert meta["description"].endswith("Dev: subtask-1 F1 0.9000.")
    assert "Dev:" not in package.build_meta("1.4.2", {})["description"]
    assert meta["url"] != corpus["url"]  # the upstream url is the data's, not the project's


@pytest.mark.parametrize(
    "pipe_names,says,never",
    [
        (
            ["sections", "ner", "members", "ner_vote", "trusted_phi"],
            "five CNN NERs that vote",
            "a CNN NER",
        ),
        (["sections", "tok2vec", "ner", "trusted_phi"], "a CNN NER", "five CNN NERs"),
    ],
)
def test_meta_description_names_the_ners_of_the_pipeline(pipe_names, says, never):
    description = package.build_meta("1.4.2", {}, pipe_names)["description"]
    assert says in description and never not in description


def test_spacy_package_keeps_the_meta(tmp_path):
    """The command line writes meta.json from the metrics files, and `spacy package` keeps
    every field of it in the package's meta (what `spacy info` shows)."""
    meta_path = tmp_path / "meta.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "package.py"),
            "unused",
            "unused",
            "--metrics",
            str(write(tmp_path / "dev.json", DEV)),
            "--metrics",
            str(write(tmp_path / "spacy.json", SPACY_EVAL)),
            "--meta-out",
            str(meta_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    nlp = spacy.blank("es")
    nlp.to_disk(tmp_path / "pipeline")
    (tmp_path / "out").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy",
            "package",
            str(tmp_path / "pipeline"),
            str(tmp_path / "out"),
            "--name",
            "meta_check",
            "--version",
            "0.0.1",
            "--meta-path",
            str(meta_path),
            "--build",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    built = json.loads(
        (tmp_path / "out" / "es_meta_check-0.0.1" / "meta.json").read_text(encoding="utf-8")
    )
    assert built["performance"]["meddocan_s1_f"] == 0.8626
    assert built["performance"]["ents_f"] == 0.8381
    assert built["sources"][0]["license"] == "CC BY 4.0"
    assert f"meddocan-deid>={meddocan_deid.__version__}" in built["requirements"][0]


def test_missing_metrics_file_stops_the_command(tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "package.py"),
            "unused",
            str(tmp_path / "packages"),
            "--metrics",
            str(tmp_path / "dev.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert f"{tmp_path / 'dev.json'}: metrics file not found" in proc.stderr
    assert not (tmp_path / "packages").exists()
