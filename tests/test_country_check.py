"""scripts/country_check.py: counts of detected countries against the expected ones."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "country_check.py"), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_counts_the_invented_reports():
    out = run(ROOT / "tests" / "data" / "countries_unseen")
    assert out.returncode == 0, out.stderr
    assert "reports: 13; detected right: 13" in out.stdout
    assert "MX: 1 reports, right 1" in out.stdout


def test_an_expected_country_for_folders_without_a_table(tmp_path):
    (tmp_path / "a.txt").write_text("Derechohabiente del IMSS, UMF No. 4.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Varón de 60 años con disnea.", encoding="utf-8")
    out = run(tmp_path, "--expect", "ES")
    assert out.returncode == 0, out.stderr
    assert "ES: 2 reports, right 1; as MX 1" in out.stdout


def test_a_missing_folder_is_named(tmp_path):
    out = run(tmp_path / "nowhere")
    assert out.returncode == 1 and "not a folder" in out.stderr


def _corpus(root, table):
    docs = root / "source" / "w90" / "nota"
    docs.mkdir(parents=True)
    (docs / "nota_01.txt").write_text(
        "Asegurado del IPS, [[TERRITORIO|Ciudad del Este]], RUC 1234567-9.", encoding="utf-8"
    )
    (docs / "nota_02.txt").write_text(
        "Paciente de [[EDAD_SUJETO_ASISTENCIA|60 años]] con disnea.", encoding="utf-8"
    )
    (root / "countries.tsv").write_text(table, encoding="utf-8")


def test_the_written_corpus_by_its_countries_table(tmp_path):
    _corpus(tmp_path, "# id, country\nw90-nota_01\tPY\nw90-nota_02\tBO\n")
    out = run("--corpus", tmp_path)
    assert out.returncode == 0, out.stderr
    assert "reports: 2; detected right: 1" in out.stdout
    assert "BO: 1 reports, right 0; as ES 1" in out.stdout


def test_a_corpus_table_naming_no_country_is_an_error(tmp_path):
    _corpus(tmp_path, "w90-nota_01\tXX\n")
    out = run("--corpus", tmp_path)
    assert out.returncode == 1 and "countries.tsv:1" in out.stderr


def test_a_corpus_table_naming_a_missing_document_is_an_error(tmp_path):
    _corpus(tmp_path, "w90-nota_07\tPY\n")
    out = run("--corpus", tmp_path)
    assert out.returncode == 1 and "no document w90-nota_07" in out.stderr
