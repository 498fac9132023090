"""experiments/compare_runs.py: two trees of runs compared byte for byte, run reports without
their timings. Every text here is invented."""

import importlib.util
import json
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).parent.parent.parent


def _script():
    spec = importlib.util.spec_from_file_location(
        "compare_runs", ROOT / "experiments" / "compare_runs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(
    root: Path, seconds: float, text: str = "Paciente: [NOMBRE_SUJETO_ASISTENCIA].\n"
) -> None:
    out = root / "tag"
    out.mkdir(parents=True)
    (out / "informe_1.txt").write_text(text, encoding="utf-8")
    (out / "informe_1.ann").write_text(
        "T1\tNOMBRE_SUJETO_ASISTENCIA 10 36\t[NOMBRE_SUJETO_ASISTENCIA]\n", encoding="utf-8"
    )
    report = {
        "mode": "tag",
        "output": str(out),
        "reports": {"read": 1},
        "seconds": seconds,
        "model_load_seconds": seconds / 2,
        "written_per_second": 1 / seconds,
    }
    (out / "run_report.json").write_text(json.dumps(report), encoding="utf-8")
    (root / "tag.log").write_text(f"done in {seconds}s\n", encoding="utf-8")


def _compare(base: Path, after: Path, *extra: str):
    import typer

    app = typer.Typer()
    app.command()(_script().main)
    return CliRunner().invoke(app, [str(base), str(after), *extra])


def test_same_outputs_other_timings_and_folders(tmp_path):
    _tree(tmp_path / "base", 3.5)
    _tree(tmp_path / "after", 9.25)
    result = _compare(tmp_path / "base", tmp_path / "after", "--exclude", "*.log")
    assert result.exit_code == 0, result.output
    assert "identical 3, differing 0" in result.output


def test_one_changed_byte_or_missing_file_fails(tmp_path):
    _tree(tmp_path / "base", 3.5)
    _tree(tmp_path / "after", 3.5, text="Paciente: [NOMBRE_SUJETO_ASISTENCIA]!\n")
    (tmp_path / "after" / "tag" / "informe_1.ann").unlink()
    result = _compare(tmp_path / "base", tmp_path / "after", "--exclude", "*.log")
    assert result.exit_code == 1
    assert (
        "differing 1, only in BASE 1" in result.output
        and "differing: tag/informe_1.txt" in result.output
    )
    # the logs hold timings: compared as bytes they differ
    _tree(tmp_path / "b2", 1.0)
    _tree(tmp_path / "a2", 2.0)
    assert _compare(tmp_path / "b2", tmp_path / "a2").exit_code == 1


def _workbook(path: Path, saved: str, cell: str) -> None:
    import zipfile

    stamp = f'<dcterms:modified xsi:type="dcterms:W3CDTF">{saved}</dcterms:modified>'
    core = f"<cp:coreProperties>{stamp}</cp:coreProperties>"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("docProps/core.xml", core)
        z.writestr("xl/worksheets/sheet1.xml", f"<sheetData><c><v>{cell}</v></c></sheetData>")


def test_office_files_member_by_member_without_the_time_they_were_saved(tmp_path):
    for root, saved in (("base", "2026-01-01T10:00:00Z"), ("after", "2026-01-02T11:30:00Z")):
        (tmp_path / root).mkdir()
        _workbook(tmp_path / root / "notas.xlsx", saved, "[NOMBRE_SUJETO_ASISTENCIA]")
    assert _compare(tmp_path / "base", tmp_path / "after").exit_code == 1  # as bytes
    result = _compare(tmp_path / "base", tmp_path / "after", "--zip-members")
    assert result.exit_code == 0 and ".xlsx: 1 identical" in result.output
    _workbook(tmp_path / "after" / "notas.xlsx", "2026-01-02T11:30:00Z", "****")
    assert _compare(tmp_path / "base", tmp_path / "after", "--zip-members").exit_code == 1


def _audit(root: Path, time: str, seconds: float, output_sha256: str, mode: str = "tag") -> None:
    root.mkdir(parents=True, exist_ok=True)
    line = {
        "seq": 1,
        "time": time,
        "seconds": seconds,
        "prev": f"chain-{time}",
        "mode": mode,
        "output_sha256": output_sha256,
    }
    (root / "audit_log.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")


def test_audit_lines_compared_without_their_clock(tmp_path):
    _audit(tmp_path / "base", "2026-01-01T10:00:00Z", 3.0, "aa")
    _audit(tmp_path / "after", "2026-01-02T11:00:00Z", 4.5, "aa")
    assert _compare(tmp_path / "base", tmp_path / "after").exit_code == 0
    _audit(tmp_path / "after", "2026-01-02T11:00:00Z", 4.5, "aa", mode="mask")
    assert _compare(tmp_path / "base", tmp_path / "after").exit_code == 1


def test_audit_output_digest_left_out_only_with_zip_members(tmp_path):
    _audit(tmp_path / "base", "2026-01-01T10:00:00Z", 3.0, "aa")
    _audit(tmp_path / "after", "2026-01-01T10:00:00Z", 3.0, "bb")
    assert _compare(tmp_path / "base", tmp_path / "after").exit_code == 1
    assert _compare(tmp_path / "base", tmp_path / "after", "--zip-members").exit_code == 0
