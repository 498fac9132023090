"""Hostile inputs, one case a test: whatever is under INPUT, every file is written, reported
as failed or listed as not read (never lost), the run goes on and the exit code says so.
The CLI is called in-process (typer's runner) with the pipeline loader patched, since a
subprocess adds nothing here. Every text is invented."""

import json
from pathlib import Path

import pytest
import spacy
from command_line import report_counts
from typer.testing import CliRunner

from meddocan_deid.cli.app import app
from meddocan_deid.engine import run

REPORT = "Datos del paciente.\nNombre: Zorionak.\nApellidos: Etxeberria Garmendia.\nNHC: 4817000.\n"


@pytest.fixture(scope="module")
def light_nlp():
    """A blank pipeline with one ruler: cheap enough for megabytes and thousands of files."""
    nlp = spacy.blank("es")
    nlp.add_pipe("entity_ruler").add_patterns(
        [{"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Zorionak"}]
    )
    return nlp


def cli(monkeypatch, nlp, *args):
    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: nlp)
    result = CliRunner().invoke(app, ["deidentify", *[str(a) for a in args], "--mode", "tag"])
    return result


def run_report(out: Path) -> dict:
    return json.loads((out / "run_report.json").read_text(encoding="utf-8"))


def accounted(rep: dict, n_files: int) -> bool:
    c = rep["reports"]
    return (
        c["read"] + c["not_read"] == n_files
        and c["read"] == c["written"] + c["skipped"] + c["failed"] + c["empty"]
    )


def test_empty_bom_nul_binary_and_mixed_encodings(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "empty.txt").write_bytes(b"")
    (inp / "bom_only.txt").write_bytes(b"\xef\xbb\xbf")
    (inp / "nul.txt").write_bytes(REPORT.encode("utf-8").replace(b"\n", b"\x00\n", 2))
    (inp / "binary.txt").write_bytes(bytes(range(256)) * 40)
    (inp / "latin.txt").write_bytes(
        ("Informe de Begoña Ibáñez, niña de 7 años. " * 5).encode("cp1252")
    )
    (inp / "utf8.txt").write_text(REPORT, encoding="utf-8")
    rep = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert accounted(rep, 6)
    failed = {f["id"]: f["reason"] for f in rep["failed"]}
    assert "empty" not in failed and {"id": "empty", "file": "empty.txt"} in rep["empty"]
    assert "binary" in failed or (tmp_path / "out" / "binary.txt").exists()
    for name in ("nul", "utf8"):
        assert (tmp_path / "out" / f"{name}.txt").exists(), name
    # cp1252 is written when detected with confidence, else failed with its byte (the hint
    # names --encoding)
    assert (tmp_path / "out" / "latin.txt").exists() or "not valid UTF-8" in failed["latin"]
    assert "Zorionak" not in (tmp_path / "out" / "nul.txt").read_text(encoding="utf-8")


def test_a_1mb_single_line_and_a_5mb_report_of_many_lines(tmp_path, light_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "line.txt").write_text(("Zorionak visto hoy " * 55_000)[:1_000_000], encoding="utf-8")
    (inp / "history.txt").write_text(
        "Nota: Zorionak estable, sin cambios.\n" * 140_000, encoding="utf-8"
    )
    rep = run(inp, tmp_path / "out", "tag", None, nlp=light_nlp, progress=False)
    assert accounted(rep, 2) and rep["reports"]["written"] == 2
    assert (inp / "history.txt").stat().st_size > 5_000_000
    for name, n in (("line", 1_000_000 // len("Zorionak visto hoy ") + 1), ("history", 140_000)):
        out = (tmp_path / "out" / f"{name}.txt").read_text(encoding="utf-8")
        assert "Zorionak" not in out and abs(out.count("[NOMBRE_SUJETO_ASISTENCIA]") - n) <= 1


def test_ten_thousand_small_files(tmp_path, light_nlp):
    inp = tmp_path / "in"
    for i in range(10_000):
        folder = inp / f"d{i // 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"r{i}.txt").write_text(f"Zorionak, visita {i}.", encoding="utf-8")
    rep = run(inp, tmp_path / "out", "tag", None, nlp=light_nlp, progress=False, batch_size=256)
    assert accounted(rep, 10_000) and rep["reports"]["written"] == 10_000
    assert sum(1 for _ in (tmp_path / "out").rglob("*.txt")) == 10_000


def test_a_symlink_loop_a_broken_link_and_an_unreadable_file(tmp_path, rule_nlp, monkeypatch):
    inp = tmp_path / "in"
    (inp / "sub").mkdir(parents=True)
    (inp / "sub" / "r.txt").write_text(REPORT, encoding="utf-8")
    (inp / "sub" / "loop").symlink_to(inp, target_is_directory=True)
    (inp / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    (inp / "locked.txt").write_text(REPORT, encoding="utf-8")
    real_read = Path.read_bytes

    def read_bytes(self):  # root reads any file: the refusal is simulated
        if self.name == "locked.txt":
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    rep = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert accounted(rep, 4)
    assert rep["reports"]["written"] == 1 and rep["reports"]["failed"] == 2
    reasons = {f["file"]: f["reason"] for f in rep["failed"]}
    assert "broken link" in reasons["gone.txt"] and "Permission denied" in reasons["locked.txt"]
    assert rep["not_read"] == [{"file": "sub/loop", "reason": "link to a folder, not followed"}]


def test_odd_file_names(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    names = [
        "con espacios.txt",
        "ñandú-áéí.txt",
        "-rf.txt",
        "a\nb.txt",
        "MAYUS.TXT",
        "mixto.Txt",
        "x" * 200 + ".txt",
        "dos.puntos.txt",
    ]
    for name in names:
        (inp / name).write_text(REPORT, encoding="utf-8")
    rep = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert accounted(rep, len(names)) and rep["reports"]["written"] == len(names)
    written = [p for p in (tmp_path / "out").glob("*.txt")]
    assert len(written) == len(names) and all("\n" not in p.name for p in written)


def test_malformed_jsonl_records(tmp_path, rule_nlp):
    lines = [
        json.dumps({"id": "ok-1", "text": REPORT}),
        "{not json",
        json.dumps({"text": REPORT}),
        json.dumps({"id": "t", "text": 42}),
        json.dumps(["id", "text"]),
        json.dumps({"id": "ok-1", "text": REPORT}),
        json.dumps({"id": "ok-2", "text": REPORT}),
        "",
        json.dumps({"id": True, "text": REPORT}),
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rep = run(path, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(8, 2, failed=6)
    reasons = " ".join(f["reason"] for f in rep["failed"])
    assert (
        "not valid JSON" in reasons and "duplicate id" in reasons and "no 'text' string" in reasons
    )


def test_files_of_other_kinds_make_the_exit_code_say_so(tmp_path, rule_nlp, monkeypatch):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.txt").write_text(REPORT, encoding="utf-8")
    (inp / "B.TXT").write_text(REPORT, encoding="utf-8")
    for name in ("tabla.csv", "carta.odt", "informe.doc"):
        (inp / name).write_bytes(b"%PDF-1.4 or PK")
    (inp / ".oculto").write_text("x", encoding="utf-8")
    result = cli(monkeypatch, rule_nlp, inp, tmp_path / "out")
    assert result.exit_code == 1
    assert (
        "written 2" in result.output
        and "failed 3" in result.output
        and "files not read 1" in result.output
    )
    rep = run_report(tmp_path / "out")
    assert sorted(f["file"] for f in rep["failed"]) == ["carta.odt", "informe.doc", "tabla.csv"]
    assert all("not a plain-text report" in f["reason"] for f in rep["failed"])
    assert "a table: run it alone with --id-column and --text-column" in rep["failed"][-1]["reason"]
    skipped = cli(monkeypatch, rule_nlp, inp, tmp_path / "out2", "--skip-unsupported")
    assert skipped.exit_code == 0, skipped.output
    rep = run_report(tmp_path / "out2")
    assert rep["reports"]["written"] == 2 and rep["reports"]["not_read"] == 4
    assert "files not read 4" in skipped.output and "not read: informe.doc" in skipped.output
    # a .docx or .pdf is a report (the documents extra): a broken one fails, skipped or not
    (inp / "carta.docx").write_bytes(b"PK not a zip")
    broken = cli(monkeypatch, rule_nlp, inp, tmp_path / "out3", "--skip-unsupported")
    assert broken.exit_code == 1 and "failed: carta.docx: not a readable .docx (" in broken.output
