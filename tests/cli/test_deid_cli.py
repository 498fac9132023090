"""The `meddocan-deid deidentify` command: inputs, outputs, resume, quarantine, exit codes,
determinism across process counts, and a SIGKILL in the middle of a run."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from command_line import outputs, report_counts

from meddocan_deid.engine import run
from meddocan_deid.formats.base import safe_stem

KEY = b"cli-key-0123456789abcdef"
ROOT = Path(__file__).parent.parent.parent
TEMPLATE = (
    "Datos del paciente.\nNombre: {name}.\nApellidos: {surname}.\nNHC: {nhc}.\n"
    "Fecha de Ingreso: {day:02d}/05/2001.\nDomicilio: C/ Mayor, {n}.\nCP: 28029.\n"
    "Médico: Luis Albarrán Tejero NºCol: 28 31 64120.\n"
    "Informe clínico del paciente: varón de 45 años que ingresa por dolor torácico.\n"
    "Remitido por: Dr. Luis Albarrán Tejero. Teléfono: 915 37 48 21 E-mail: lalbarran@example.com\n"
)
NAMES = ["Ana", "Eva", "Luis", "Pedro", "Marta", "Rosa", "Juan", "Sara"]
SURNAMES = ["Ruiz Gil", "López Martín", "Sanz Vidal", "Mora Pérez"]


def make_report(i: int) -> str:
    return TEMPLATE.format(
        name=NAMES[i % 8],
        surname=SURNAMES[i % 4],
        nhc=1000000 + 37 * i,
        day=1 + i % 28,
        n=i % 90 + 1,
    )


def write_folder(folder: Path, n: int, nested: bool = False) -> None:
    for i in range(n):
        sub = folder / (f"sub{i % 3}" if nested else "")
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"doc{i:03d}.txt").write_text(make_report(i), encoding="utf-8")


def cli(*args, env_key=None, timeout=120):
    """The CLI in-process (typer's runner): a subprocess adds only Python's start-up here."""
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    result = CliRunner().invoke(
        app, [str(a) for a in args], env={"MEDDOCAN_DEID_KEY": env_key or None}
    )
    return SimpleNamespace(returncode=result.exit_code, stdout=result.stdout, stderr=result.stderr)


def test_folder_nested_mirrored_and_ann(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    write_folder(inp, 6, nested=True)
    (inp / "sub0" / "same.txt").write_text(make_report(1), encoding="utf-8")
    (inp / "sub1" / "same.txt").write_text(
        make_report(2), encoding="utf-8"
    )  # same base name, other folder
    out = tmp_path / "out"
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(8, 8)
    assert (out / "sub0" / "same.txt").read_text() != (out / "sub1" / "same.txt").read_text()
    assert rep["phi_per_label"]["NOMBRE_SUJETO_ASISTENCIA"] == 8 * 2
    assert set(rep) >= {"mode", "model", "seconds", "failed", "phi_per_label", "reports"}
    ann = (out / "sub0" / "same.ann").read_text(encoding="utf-8").splitlines()
    new_text = (out / "sub0" / "same.txt").read_text(encoding="utf-8")
    assert len(ann) >= 10
    for line in ann:  # the output's offsets: each entity on its replacement
        tid, mid, surface = line.split("\t")
        label, start, end = mid.split(" ")
        assert new_text[int(start) : int(end)] == surface
    assert "Eva" not in new_text and "López" not in new_text and "28 31 64120" not in new_text


def test_bad_inputs_quarantined(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    write_folder(inp, 3)
    (inp / "bad_utf8.txt").write_bytes(b"Nombre: Ana.\n" + b"\xe9\xff ruido")
    (inp / "empty.txt").write_text("", encoding="utf-8")
    (inp / "blank.txt").write_text(" \n\n", encoding="utf-8")
    (inp / "big.txt").write_text(make_report(0) * 40, encoding="utf-8")
    out = tmp_path / "out"
    rep = run(
        inp,
        out,
        "mask",
        None,
        nlp=rule_nlp,
        progress=False,
        options=__import__("meddocan_deid.deid", fromlist=["DeidOptions"]).DeidOptions(
            max_chars=5000
        ),
    )
    # an empty or blank file is no failure: a status of its own
    assert rep["reports"] == report_counts(7, 3, failed=2, empty=2)
    assert rep["empty"] == [
        {"id": "blank", "file": "blank.txt"},
        {"id": "empty", "file": "empty.txt"},
    ]
    reasons = {f["id"]: f["reason"] for f in rep["failed"]}
    assert reasons["bad_utf8"] == "bad_utf8.txt: not valid UTF-8 (byte 13)"
    assert "empty" not in reasons and "blank" not in reasons
    assert reasons["big"].startswith("big.txt: text too long")
    for stem in ("bad_utf8", "empty", "blank", "big"):
        assert not (out / f"{stem}.txt").exists() and not (out / f"{stem}.ann").exists()
    assert "Ana" not in (out / "run_report.json").read_text()


def test_jsonl_ids_duplicates_and_patients(tmp_path, rule_nlp):
    lines = [
        {"id": "a/1", "text": make_report(0), "patient_id": "P1"},
        {"id": "a_1", "text": make_report(0), "patient_id": "P1"},
        {"id": "a/1", "text": make_report(1)},
        {"id": 7, "text": make_report(2)},
        {"id": "../../etc/x", "text": make_report(3)},
        {"id": "no-text"},
    ]
    raw = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n{not json\n"
    path = tmp_path / "in.jsonl"
    path.write_bytes(raw.encode("utf-8") + b'{"id": "u", "text": "\xff"}\n')
    out = tmp_path / "out"
    rep = run(path, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(8, 4, failed=4)
    reasons = sorted(f["reason"].split(": ", 1)[1] for f in rep["failed"])
    assert reasons == [
        "duplicate id",
        "no 'text' string",
        "not valid JSON",
        "not valid UTF-8 (byte 21)",
    ]
    files = sorted(p.name for p in out.glob("*.txt"))
    assert len(files) == 4 and all(re.fullmatch(r"[A-Za-z0-9._-]+\.txt", f) for f in files)
    assert not list(tmp_path.glob("etc*")) and all(p.parent == out for p in out.rglob("*.txt"))
    # same patient, same text: same surrogates although the ids differ
    assert (out / f"{safe_stem('a/1')}.txt").read_text() == (out / "a_1.txt").read_text()


def test_resume_skips_done_and_redoes_half_written(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    write_folder(inp, 5)
    out = tmp_path / "out"
    run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    clean = outputs(out)
    # simulate a kill: one report with its .ann but no .txt, one temp file left behind
    (out / "doc002.txt").unlink()
    (out / "doc003.ann").write_text("stale", encoding="utf-8")
    (out / ".doc004.txt.abc123xy.tmp").write_text("partial", encoding="utf-8")
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(5, 1, skipped=4)
    assert not list(out.rglob("*.tmp"))
    after = outputs(out)
    assert after["doc002.txt"] == clean["doc002.txt"]
    assert after["doc003.ann"] == b"stale"  # done reports are not touched...
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False, overwrite=True)
    assert rep["reports"]["written"] == 5 and outputs(out) == clean  # ...unless --overwrite


def test_same_output_with_one_and_two_processes(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    write_folder(inp, 12, nested=True)
    run(
        inp,
        tmp_path / "one",
        "surrogate",
        KEY,
        nlp=rule_nlp,
        n_process=1,
        batch_size=5,
        progress=False,
    )
    rep = run(
        inp,
        tmp_path / "two",
        "surrogate",
        KEY,
        nlp=rule_nlp,
        n_process=2,
        batch_size=2,
        progress=False,
    )
    assert rep["reports"]["written"] == 12
    one, two = outputs(tmp_path / "one"), outputs(tmp_path / "two")
    assert len(one) == 25 and one == two  # 12 .txt, 12 .ann and the input digests
    run(inp, tmp_path / "other", "surrogate", b"x" * 32, nlp=rule_nlp, progress=False)
    other = outputs(tmp_path / "other")
    assert sum(one[k] != other[k] for k in one if k.endswith(".txt")) == 12


def test_cli_modes_keys_and_exit_codes(tmp_path, model_dir):
    inp = tmp_path / "in"
    write_folder(inp, 3)
    (inp / "bad.txt").write_bytes(
        b"Nombre: \xff\xfe\xfd.\n"
    )  # not UTF-8 (a BOM alone is an empty file)
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    # surrogate without a key: refused, nothing written
    r = cli("deidentify", inp, tmp_path / "o1", "--mode", "surrogate", "--model", model_dir)
    assert r.returncode == 2 and "needs a key" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "o1").exists()
    # key from a file; a failed report -> exit 1
    r = cli(
        "deidentify",
        inp,
        tmp_path / "o2",
        "--mode",
        "surrogate",
        "--key-file",
        key_file,
        "--model",
        model_dir,
    )
    assert r.returncode == 1, r.stderr
    assert (
        "Traceback" not in r.stderr and "\r" not in r.stderr
    )  # no progress bar when not a terminal
    rep = json.loads((tmp_path / "o2" / "run_report.json").read_text())
    assert rep["reports"] == report_counts(4, 3, failed=1)
    # the same key from the environment: byte-identical output
    r = cli(
        "deidentify",
        inp,
        tmp_path / "o3",
        "--mode",
        "surrogate",
        "--model",
        model_dir,
        env_key=KEY.decode(),
    )
    assert r.returncode == 1
    assert outputs(tmp_path / "o2") == outputs(tmp_path / "o3")
    # a throwaway key: other output
    r = cli(
        "deidentify",
        inp,
        tmp_path / "o4",
        "--mode",
        "surrogate",
        "--random-key",
        "--model",
        model_dir,
    )
    assert r.returncode == 1
    assert outputs(tmp_path / "o4")["doc000.txt"] != outputs(tmp_path / "o2")["doc000.txt"]
    # tag mode on one file, numbering and a tag table
    table = tmp_path / "tags.tsv"
    table.write_text("NOMBRE_SUJETO_ASISTENCIA\tPACIENTE\n", encoding="utf-8")
    r = cli(
        "deidentify",
        inp / "doc000.txt",
        tmp_path / "o5",
        "--mode",
        "tag",
        "--tag-table",
        table,
        "--tag-numbering",
        "--model",
        model_dir,
    )
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "o5" / "doc000.txt").read_text()
    assert "Nombre: [PACIENTE-1].\nApellidos: [PACIENTE-2]." in text and "[FECHAS-1]" in text
    # bad usage: one line, exit 2
    for args in (
        [
            "deidentify",
            tmp_path / "missing",
            tmp_path / "o6",
            "--mode",
            "mask",
            "--model",
            model_dir,
        ],
        ["deidentify", inp, inp / "out", "--mode", "mask", "--model", model_dir],
        ["deidentify", inp, tmp_path / "o7", "--mode", "mask", "--model", tmp_path / "nomodel"],
    ):
        r = cli(*args)
        assert (
            r.returncode == 2
            and len(r.stderr.strip().splitlines()) == 1
            and "Traceback" not in r.stderr
        )


def test_sigkill_midway_then_resume(tmp_path, model_dir):
    """Kill -9 a run while it writes, rerun: every report written exactly once, identical
    to an uninterrupted run, no temporary file left."""
    n = 400
    inp = tmp_path / "in"
    write_folder(inp, n, nested=True)
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY)
    out = tmp_path / "out"
    args = [
        sys.executable,
        "-m",
        "meddocan_deid",
        "deidentify",
        str(inp),
        str(out),
        "--mode",
        "surrogate",
        "--key-file",
        str(key_file),
        "--model",
        str(model_dir),
        "--batch-size",
        "1",
    ]
    proc = subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, start_new_session=True
    )
    deadline = time.time() + 180
    try:
        while time.time() < deadline and proc.poll() is None:
            if out.is_dir() and sum(1 for _ in out.rglob("*.txt")) >= 20:
                break
            time.sleep(0.005)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    done_before = sum(1 for _ in out.rglob("*.txt"))
    assert 0 < done_before < n, "the run was not interrupted midway"
    r = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "run_report.json").read_text())
    assert rep["reports"]["read"] == n and rep["reports"]["failed"] == 0
    assert (
        rep["reports"]["skipped"] >= done_before - 1
        and rep["reports"]["written"] + rep["reports"]["skipped"] == n
    )
    assert not [p for p in out.rglob("*") if p.name.endswith(".tmp")]
    txts = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.txt"))
    assert len(txts) == n == len(set(txts)) and len(list(out.rglob("*.ann"))) == n
    clean = tmp_path / "clean"
    r = subprocess.run(
        args[:5] + [str(clean)] + args[6:], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert r.returncode == 0
    assert outputs(out) == outputs(clean)


PRIVACY_REPORT = (
    "Datos del paciente.\nNombre: Elvira Sanmartín.\n\n"
    "Paciente de 40 años con disnea.\n\n"
    "Remitido por: Dra. Quelvoria Zubimendi. Unidad de Neumología. "
    "Avenida Olmos 14, 31500 Tudela.\n"
)


@pytest.mark.parametrize("how", ["flag", "policy"])
def test_privacy_high_from_the_cli_and_the_policy(tmp_path, model_dir, how):
    """High privacy (real general-Spanish model and lexicon) removes more than balanced and
    is recorded in the run fingerprint; a balanced rerun into the folder is refused."""
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(PRIVACY_REPORT, encoding="utf-8")
    balanced = cli("deidentify", inp, tmp_path / "balanced", "--mode", "tag", "--model", model_dir)
    assert balanced.returncode == 0, balanced.stderr
    extra = ["--privacy", "high"]
    if how == "policy":
        policy = tmp_path / "policy.toml"
        policy.write_text('privacy = "high"\n', encoding="utf-8")
        extra = ["--policy", policy]
    high = cli("deidentify", inp, tmp_path / "high", "--mode", "tag", "--model", model_dir, *extra)
    assert high.returncode == 0, high.stderr
    tags = lambda folder: (folder / "r.txt").read_text(encoding="utf-8").count("[")  # noqa: E731
    assert tags(tmp_path / "high") > tags(tmp_path / "balanced")
    assert "Quelvoria" not in (tmp_path / "high" / "r.txt").read_text(encoding="utf-8")
    fingerprint = json.loads((tmp_path / "high" / "run_fingerprint.json").read_text())
    assert fingerprint["privacy"] == "high"
    again = cli(
        "deidentify",
        inp,
        tmp_path / "high",
        "--mode",
        "tag",
        "--model",
        model_dir,
        "--privacy",
        "balanced",
    )
    assert again.returncode == 2 and "privacy: 'high' (before) vs 'balanced' (now)" in again.stderr


def test_bad_privacy_level_stops_the_run(tmp_path, model_dir):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(PRIVACY_REPORT, encoding="utf-8")
    res = cli(
        "deidentify",
        inp,
        tmp_path / "out",
        "--mode",
        "tag",
        "--model",
        model_dir,
        "--privacy",
        "maximum",
    )
    assert res.returncode == 2
    assert "privacy level must be one of ['balanced', 'high'], not 'maximum'" in res.stderr
    assert not (tmp_path / "out").exists()
