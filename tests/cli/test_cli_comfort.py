"""CLI comfort: inputs with nothing to read, --encoding, keygen, help at 80 columns and
the progress bar. Every report text here is invented."""

import json
import os
import pty
import select
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from command_line import cli, report_counts

from meddocan_deid.deid.keys import load_key
from meddocan_deid.engine import RunError, run
from meddocan_deid.errors import InputError
from meddocan_deid.formats.sources import describe_folder, resolve_encoding

ROOT = Path(__file__).parent.parent.parent
KEY = b"comfort-key-0123456789abcdefghij"
# invented, with accents that cp1252 and UTF-8 encode differently
REPORT = (
    "Datos del paciente.\nNombre: Eulalia.\nApellidos: Garmendia Ochoa.\n"
    "Informe clínico del paciente: diagnóstico de bronquitis; "
    "evolución favorable tras tratamiento.\n"
)


# --- an input with nothing to read ------------------------------------------------------


@pytest.mark.parametrize(
    "files,expected",
    [
        ({"a.odt": 3, "b.doc": 2}, "3 .odt, 2 .doc, no .txt"),
        ({"x.doc": 1}, "1 .doc, no .txt"),
        ({"LEEME": 1, "n.csv": 2}, "2 .csv, 1 (no extension), no .txt"),
        ({}, "the folder is empty"),
        ({".oculto/n.txt": 1}, "the folder is empty"),  # hidden folders are never read
    ],
)
def test_folder_with_nothing_to_read_says_what_it_found(tmp_path, rule_nlp, files, expected):
    inp = tmp_path / "in"
    inp.mkdir()
    for name, n in files.items():
        for i in range(n):
            path = inp / name.replace(".", f"{i}.", 1) if n > 1 else inp / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"%binary")
    assert describe_folder(inp) == expected
    with pytest.raises(RunError) as err:
        run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert str(inp) in str(err.value) and f"({expected})" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_folder_of_odt_and_doc_exits_non_zero(tmp_path, model_dir):
    inp = tmp_path / "in"
    inp.mkdir()
    for name in ("i1.odt", "i2.odt", "i3.odt", "c1.doc", "c2.doc"):
        (inp / name).write_bytes(b"PK\x03\x04")
    r = cli("deidentify", inp, tmp_path / "out", "--mode", "tag", "--model", model_dir)
    assert r.returncode == 2
    assert "no .txt report to read (3 .odt, 2 .doc, no .txt)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_folder_of_broken_pdf_and_docx_names_each(tmp_path, model_dir):
    """.pdf and .docx are reports (the documents extra): read, and each broken one failed by
    name."""
    inp = tmp_path / "in"
    inp.mkdir()
    for name in ("i1.pdf", "c1.docx"):
        (inp / name).write_bytes(b"PK\x03\x04")
    r = cli("deidentify", inp, tmp_path / "out", "--mode", "tag", "--model", model_dir)
    assert r.returncode == 1
    assert (
        "failed: c1.docx: not a readable .docx (" in r.stderr
        and "failed: i1.pdf: not a readable PDF (" in r.stderr
    )


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_jsonl_is_an_error(tmp_path, rule_nlp, content):
    path = tmp_path / "vacio.jsonl"
    path.write_bytes(content)
    with pytest.raises(RunError, match=r"vacio\.jsonl: empty JSONL file"):
        run(path, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert not (tmp_path / "out").exists()


# --- --encoding -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,expected",
    [
        ("utf-8", "utf-8"),
        ("UTF8", "utf-8"),
        ("cp1252", "cp1252"),
        ("windows-1252", "cp1252"),
        ("latin-1", "iso8859-1"),
        ("nope-42", None),
        ("base64", None),
        ("rot13", None),
    ],
)
def test_resolve_encoding(name, expected):
    if expected is None:
        with pytest.raises(InputError, match=f"--encoding '{name}'"):
            resolve_encoding(name)
    else:
        assert resolve_encoding(name) == expected


def test_unknown_encoding_is_refused_before_anything_is_written(tmp_path, model_dir):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "n.txt").write_text(REPORT, encoding="utf-8")
    r = cli(
        "deidentify",
        inp,
        tmp_path / "out",
        "--mode",
        "tag",
        "--model",
        model_dir,
        "--encoding",
        "klingon",
    )
    assert r.returncode == 2 and "--encoding 'klingon': unknown encoding" in r.stderr
    assert not (tmp_path / "out").exists()


def test_cp1252_file_hint_then_encoding_cp1252_works(tmp_path, model_dir):
    inp, out = tmp_path / "in", tmp_path / "out"
    inp.mkdir()
    (inp / "ok.txt").write_text(REPORT, encoding="utf-8")
    data = REPORT.encode("cp1252")
    (inp / "windows.txt").write_bytes(data)
    offset = REPORT.encode("utf-8").index("í".encode())  # the first non-ASCII byte
    r = cli("deidentify", inp, out, "--mode", "tag", "--model", model_dir)
    assert r.returncode == 1
    assert f"windows.txt: not valid UTF-8 (byte {offset})" in r.stderr
    assert "--encoding cp1252" in r.stderr and "latin-1" in r.stderr
    assert not (out / "windows.txt").exists()
    # resume with the file's encoding: the failed report is done now, the other one skipped
    r = cli("deidentify", inp, out, "--mode", "tag", "--model", model_dir, "--encoding", "cp1252")
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "run_report.json").read_text())
    assert rep["reports"] == report_counts(2, 1, skipped=1)
    assert rep["options"]["encoding"] == "cp1252"
    written = (out / "windows.txt").read_bytes().decode("utf-8")  # outputs are always UTF-8
    assert "diagnóstico de bronquitis; evolución favorable" in written and "Eulalia" not in written
    assert written == (out / "ok.txt").read_text(encoding="utf-8")


def test_jsonl_in_latin1(tmp_path, rule_nlp):
    path = tmp_path / "notas.jsonl"
    path.write_bytes(
        (json.dumps({"id": "n1", "text": REPORT}, ensure_ascii=False) + "\n").encode("latin-1")
    )
    rep = run(path, tmp_path / "a", "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"]["failed"] == 1 and "not valid UTF-8 (byte" in rep["failed"][0]["reason"]
    rep = run(path, tmp_path / "b", "tag", None, nlp=rule_nlp, progress=False, encoding="latin-1")
    assert rep["reports"]["written"] == 1
    assert "evolución" in (tmp_path / "b" / "n1.txt").read_text(encoding="utf-8")


# --- keygen -----------------------------------------------------------------------------


def test_keygen_writes_a_private_key_and_never_overwrites(tmp_path):
    path = tmp_path / "deid.key"
    r = cli("keygen", path)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    content = path.read_text(encoding="ascii")
    assert len(content) == 65 and content.endswith("\n") and int(content[:64], 16) >= 0
    assert f"--key-file {path}" in r.stdout and content.strip() not in r.stdout + r.stderr
    assert load_key(path) == content.strip().encode(
        "ascii"
    )  # the same value works as MEDDOCAN_DEID_KEY
    assert load_key(None, environ={"MEDDOCAN_DEID_KEY": content.strip()}) == load_key(path)
    # two keys differ
    other = tmp_path / "otra.key"
    assert cli("keygen", other).returncode == 0 and other.read_text() != content
    # refusal: the existing key is kept
    r = cli("keygen", path)
    assert r.returncode == 2 and "already exists" in r.stderr and str(path) in r.stderr
    assert path.read_text(encoding="ascii") == content
    # a missing folder is created, only its owner may enter it
    r = cli("keygen", tmp_path / "new" / "keys" / "k.key", preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0, r.stderr
    for folder in (tmp_path / "new", tmp_path / "new" / "keys"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "new" / "keys" / "k.key").stat().st_mode) == 0o600
    (tmp_path / "file").write_text("x")
    r = cli("keygen", tmp_path / "file" / "k.key")
    assert r.returncode == 2 and "not a folder" in r.stderr


def test_keygen_mode_0600_whatever_the_umask(tmp_path):
    path = tmp_path / "k.key"
    r = cli("keygen", path, preexec_fn=lambda: os.umask(0))
    assert r.returncode == 0 and stat.S_IMODE(path.stat().st_mode) == 0o600


# --- help at 80 columns -----------------------------------------------------------------


@pytest.mark.parametrize(
    "command,must_show",
    [
        ([], ["deidentify", "keygen", "serve"]),
        (
            ["deidentify"],
            [
                "MEDDOCAN_DEID_KEY",
                "meddocan-deid keygen FILE",
                "--key-file FILE",
                "--encoding",
                "run_fingerprint.json",
                "Examples:",
                "--mode surrogate --key-file deid.key",
            ],
        ),
        (["keygen"], ["0600", "--key-file FILE", "MEDDOCAN_DEID_KEY"]),
        (["deidentify-spark"], ["--mode"]),
        (
            ["serve"],
            [
                "--token-file",
                "Authorization: Bearer TOKEN",
                "SIGTERM",
                "meddocan-deid serve --token-file",
            ],
        ),
    ],
)
def test_help_readable_at_80_columns(command, must_show):
    r = cli(*command, "--help", env={"COLUMNS": "80"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "…" not in r.stdout and "..." not in r.stdout.replace("[ARGS]...", "")
    assert max(len(line) for line in lines) <= 80
    # a hint split over lines still reads whole once the lines are joined
    joined = " ".join(line.strip() for line in lines)
    for text in must_show:
        assert text in joined, text


# --- progress bar -----------------------------------------------------------------------


class _FakeBar:
    def __init__(self, length, **kwargs):
        self.length, self.kwargs, self.steps, self.closed = length, kwargs, 0, False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True

    def update(self, n):
        self.steps += n


@pytest.mark.parametrize("kind", ["folder", "jsonl"])
def test_progress_bar_has_the_total_and_counts_every_report(tmp_path, rule_nlp, monkeypatch, kind):
    """The total is known before the run (JSONL lines counted first); skipped and failed
    reports move the bar too."""
    import click

    bars = []
    monkeypatch.setattr(
        click, "progressbar", lambda length, **kw: bars.append(_FakeBar(length, **kw)) or bars[-1]
    )
    if kind == "folder":
        inp = tmp_path / "in"
        inp.mkdir()
        for i in range(4):
            (inp / f"n{i}.txt").write_text(REPORT, encoding="utf-8")
        (inp / "roto.txt").write_bytes(b"\xff\xfe")
    else:
        inp = tmp_path / "in.jsonl"
        lines = [json.dumps({"id": f"n{i}", "text": REPORT}) for i in range(4)] + ["{roto", ""]
        inp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert bars == []  # progress off: no bar
    (out / "n2.txt").unlink()
    rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=True)
    # the folder's `roto.txt` is a UTF-16 byte-order mark alone: an empty report, not a failed one
    failed, empty = (0, 1) if kind == "folder" else (1, 0)
    assert rep["reports"] == report_counts(5, 1, skipped=3, failed=failed, empty=empty)
    (bar,) = bars
    assert bar.length == 5 and bar.steps == 5 and bar.closed
    assert bar.kwargs.get("show_eta") is True and bar.kwargs.get("file") is sys.stderr


def test_progress_bar_shown_on_a_terminal(tmp_path, model_dir):
    """With stderr on a terminal the bar shows `done/total`; without one (other tests) there
    is no bar."""
    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(3):
        (inp / f"n{i}.txt").write_text(REPORT, encoding="utf-8")
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "MEDDOCAN_DEID_KEY"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "meddocan_deid",
            "deidentify",
            str(inp),
            str(tmp_path / "out"),
            "--mode",
            "tag",
            "--model",
            str(model_dir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=slave,
        cwd=ROOT,
        env=env,
    )
    os.close(slave)
    chunks = []
    deadline = time.time() + 180
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 1)
        if ready:
            try:
                data = os.read(master, 4096)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=60)
    os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0, shown
    assert "de-identifying" in shown and "3/3" in shown


@pytest.mark.parametrize(
    "reasons,encoding,expected_hint",
    [
        (
            ["informe_07.txt: not valid UTF-8 (byte 412)"],
            "utf-8",
            "hint: 1 report not valid UTF-8 nor of an encoding detected with confidence "
            "(first: informe_07.txt at "
            "byte 412); if they come from Windows or older systems, rerun with --encoding cp1252 "
            "(or --encoding "
            "latin-1), the encoding used when the detection is not sure",
        ),
        (
            ["a.jsonl:3: not valid cp1252 (byte 4)", "b.txt: not valid cp1252 (byte 9)"],
            "cp1252",
            "hint: 2 reports not valid UTF-8 nor of an encoding detected with confidence, "
            "and not valid cp1252 "
            "(--encoding) either (first: a.jsonl:3 at byte 4); check how they are encoded",
        ),
        (["a.jsonl:3: not valid JSON", "c.txt: empty text"], "utf-8", None),
    ],
)
def test_failure_lines_hint_only_for_undecodable_files(reasons, encoding, expected_hint):
    from meddocan_deid.engine.record import failure_lines

    lines = failure_lines(
        {"failed": [{"id": str(i), "reason": r} for i, r in enumerate(reasons)]}, encoding
    )
    assert lines[: len(reasons)] == [f"failed: {r}" for r in reasons]
    hints = [line for line in lines if line.startswith("hint:")]
    if expected_hint is None:
        assert hints == []
    else:
        assert len(hints) == 1 and hints[0].startswith(expected_hint)
