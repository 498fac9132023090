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
