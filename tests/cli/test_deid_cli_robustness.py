"""The batch CLI on awkward inputs and machines: mixed encodings, failure lines that name
their file, resume after an input was edited, a full disk, a second run into the same
folder, and the kinship option. Every report text here is invented."""

import errno
import json
import logging
import os
import subprocess
import sys

import pytest
from command_line import outputs, report_counts

from meddocan_deid.cli.app import main
from meddocan_deid.engine import RunError, run
from meddocan_deid.engine import output as run_output
from meddocan_deid.engine.output import DIGESTS_NAME, LOCK_NAME
from meddocan_deid.engine.record import failure_lines
from meddocan_deid.formats.encodings import decode_bytes

KEY = b"robust-key-0123456789abcdefghij"
# invented; ñ and the accents are encoded differently in cp1252 and UTF-8
REPORT = (
    "Datos del paciente.\nNombre: Begoña.\nApellidos: Ibáñez Urrutia.\nNHC: {nhc}.\n"
    "Informe clínico: niña de 7 años con otitis; evolución favorable. Su madre la acompaña.\n"
)


def report(i: int = 0) -> str:
    return REPORT.format(nhc=4817000 + 31 * i)


class ExplodingNLP:
    """A pipeline that raises for texts containing BOOM (as a broken component might)."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.max_length = nlp.max_length
        self.meta = nlp.meta
        self.pipe_names = nlp.pipe_names
        self.vocab = nlp.vocab

    def get_pipe(self, name):
        return self.nlp.get_pipe(name)

    def pipe(self, texts):
        texts = list(texts)
        if any("BOOM" in t for t in texts):
            raise RuntimeError("boom")
        return self.nlp.pipe(texts)

    def __call__(self, text):
        if "BOOM" in text:
            raise RuntimeError("boom")
        return self.nlp(text)


# -- 1. encodings: detected per file, --encoding is the fallback ---------------------


def test_mixed_encodings_with_cp1252_fallback_keep_utf8_reports_intact(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "utf8.txt").write_bytes(report().encode("utf-8"))
    (inp / "windows.txt").write_bytes(report().encode("cp1252"))
    (inp / "utf16.txt").write_bytes(
        report().encode("utf-16")
    )  # with its BOM: detected with confidence
    out = tmp_path / "out"
    rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=False, encoding="cp1252")
    assert rep["reports"]["written"] == 3 and rep["reports"]["failed"] == 0
    assert rep["encodings"] == {"cp1252": 1, "utf-16": 1, "utf-8": 1}
    utf8 = (out / "utf8.txt").read_text(encoding="utf-8")
    assert "niña" in utf8 and "evolución" in utf8 and "Ã" not in utf8  # not read as cp1252
    assert (
        (out / "windows.txt").read_bytes()
        == (out / "utf8.txt").read_bytes()
        == (out / "utf16.txt").read_bytes()
    )


def test_decode_bytes_utf8_first_then_confident_detection_then_fallback():
    text = report()
    assert decode_bytes(text.encode("utf-8"), "cp1252") == (text, "utf-8")
    assert decode_bytes(text.encode("utf-16"), "cp1252") == (text, "utf-16")
    # Spanish in cp1252: the detector also proposes cp1250 (ñ read as ń), so the fallback decides
    assert decode_bytes(text.encode("cp1252"), "cp1252") == (text, "cp1252")
    assert decode_bytes(text.encode("cp1252"), "latin-1") == (text, "iso8859-1")
    with pytest.raises(UnicodeDecodeError):
        decode_bytes(text.encode("cp1252"), "utf-8")


# -- 2. every failure line names its file --------------------------------------------


def test_every_failure_line_names_the_file(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    (inp / "sub").mkdir(parents=True)
    (inp / "ok.txt").write_text(report(), encoding="utf-8")
    (inp / "sub" / "empty.txt").write_text(" \n", encoding="utf-8")
    (inp / "sub" / "long.txt").write_text(report() * 30, encoding="utf-8")
    (inp / "boom.txt").write_text(report() + "BOOM\n", encoding="utf-8")
    (inp / "bad.txt").write_bytes(b"Nombre: \xff\xfe\xfd.\n")
    from meddocan_deid.deid import DeidOptions

    rep = run(
        inp,
        tmp_path / "out",
        "tag",
        None,
        nlp=ExplodingNLP(rule_nlp),
        progress=False,
        options=DeidOptions(max_chars=2000),
    )
    assert rep["reports"] == report_counts(5, 1, failed=3, empty=1)
    assert rep["empty"] == [{"id": "sub/empty", "file": "sub/empty.txt"}]
    lines = [line for line in failure_lines(rep) if line.startswith("failed: ")]
    expected = {
        "sub/long.txt": "text too long",
        "boom.txt": "error in the pipeline",
        "bad.txt": "not valid UTF-8",
    }
    assert len(lines) == 3
    for file, problem in expected.items():
        (line,) = [line for line in lines if line.startswith(f"failed: {file}: ")]
        assert problem in line
    assert {f["file"] for f in rep["failed"]} == set(expected)


def test_jsonl_failure_lines_name_file_and_line(tmp_path, rule_nlp):
    path = tmp_path / "notas.jsonl"
    path.write_text(
        json.dumps({"id": "a", "text": report()})
        + "\n"
        + json.dumps({"id": "b", "text": "  "})
        + "\n",
        encoding="utf-8",
    )
    rep = run(path, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert [f["reason"] for f in rep["failed"]] == ["notas.jsonl:2: empty text"]
    assert failure_lines(rep)[0] == "failed: notas.jsonl:2: empty text"


# -- 3. resume compares the input's digest --------------------------------------------


def test_resume_redoes_an_input_edited_after_the_run(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(4):
        (inp / f"r{i}.txt").write_text(report(i), encoding="utf-8")
    out = tmp_path / "out"
    run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    before = outputs(out)
    (inp / "r2.txt").write_text(report(2).replace("otitis", "faringitis"), encoding="utf-8")
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(4, 1, skipped=3)
    assert "faringitis" in (out / "r2.txt").read_text(encoding="utf-8")
    after = outputs(out)
    assert {k for k in after if after[k] != before.get(k)} == {"r2.txt", "r2.ann", DIGESTS_NAME}
    # the same as a run on the edited input from scratch
    clean = tmp_path / "clean"
    run(inp, clean, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert outputs(clean) == after
    # nothing changed: everything skipped
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"]["skipped"] == 4 and outputs(out) == after


def test_resume_redoes_an_edited_jsonl_line(tmp_path, rule_nlp):
    path = tmp_path / "in.jsonl"
    rows = [{"id": f"n{i}", "text": report(i)} for i in range(3)]
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    out = tmp_path / "out"
    run(path, out, "tag", None, nlp=rule_nlp, progress=False)
    rows[1]["text"] = rows[1]["text"].replace("otitis", "faringitis")
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    rep = run(path, out, "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(3, 1, skipped=2)
    assert "faringitis" in (out / "n1.txt").read_text(encoding="utf-8")


# -- 5. a full disk -------------------------------------------------------------------


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_full_disk_is_a_clear_error_exit_1_and_a_rerun_resumes(
    tmp_path, model_dir, monkeypatch, capsys, code
):
    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(5):
        (inp / f"r{i}.txt").write_text(report(i), encoding="utf-8")
    out = tmp_path / "out"
    real = run_output.write_report
    calls = []

    def full_after_two(*args, **kwargs):
        calls.append(1)
        if len(calls) > 2:
            raise OSError(code, os.strerror(code))
        return real(*args, **kwargs)

    monkeypatch.setattr(run_output, "write_report", full_after_two)
    args = ["deidentify", str(inp), str(out), "--mode", "tag", "--model", str(model_dir)]
    with pytest.raises(SystemExit) as info:
        main(args)
    err = capsys.readouterr().err
    assert info.value.code == 1, err
    assert "internal error" not in err
    assert (
        str(out) in err
        and "after 2 reports written" in err
        and "rerun the same command to resume" in err
    )
    assert ("no space left" if code == errno.ENOSPC else "quota") in err
    assert not (out / LOCK_NAME).exists()
    monkeypatch.setattr(run_output, "write_report", real)
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 0
    rep = json.loads((out / "run_report.json").read_text())
    assert rep["reports"] == report_counts(5, 3, skipped=2)


# -- 6. the output folder's lock -------------------------------------------------------


def test_second_run_into_a_locked_folder_is_refused_exit_2(tmp_path, model_dir, rule_nlp, capsys):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(report(), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / LOCK_NAME).write_text(f"{os.getpid()}\n")  # a live process holds it
    with pytest.raises(RunError) as info:
        run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert str(out) in str(info.value) and f"pid {os.getpid()}" in str(info.value)
    assert not (out / "r.txt").exists()
    with pytest.raises(SystemExit) as exit_info:
        main(["deidentify", str(inp), str(out), "--mode", "tag", "--model", str(model_dir)])
    assert exit_info.value.code == 2 and "another run" in capsys.readouterr().err
    assert (out / LOCK_NAME).read_text().strip() == str(
        os.getpid()
    )  # someone else's lock is left alone


def test_stale_lock_is_taken_over_with_a_warning_and_removed(tmp_path, rule_nlp, caplog):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(report(), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (out / LOCK_NAME).write_text(dead.stdout)
    with caplog.at_level(logging.WARNING, logger="meddocan_deid.deid"):
        rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"]["written"] == 1
    assert any("stale lock" in r.getMessage() for r in caplog.records)
    assert not (out / LOCK_NAME).exists()


def test_lock_is_removed_when_the_run_fails(tmp_path, rule_nlp, monkeypatch):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(report(), encoding="utf-8")
    out = tmp_path / "out"
    seen = []

    def broken(output, *args, **kwargs):
        seen.append((output / LOCK_NAME).read_text().strip())
        raise RuntimeError("broken writer")

    monkeypatch.setattr(run_output, "write_report", broken)
    with pytest.raises(RuntimeError):
        run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert seen == [str(os.getpid())]  # held while writing
    assert not (out / LOCK_NAME).exists()


# -- 7. kinship words: kept by default, an option of the CLI, the policy and the fingerprint --


def test_keep_kinship_default_cli_flag_policy_and_fingerprint(tmp_path, model_dir):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(report(), encoding="utf-8")
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY)
    base = [
        "deidentify",
        str(inp),
        None,
        "--mode",
        "surrogate",
        "--key-file",
        str(key_file),
        "--model",
        str(model_dir),
    ]

    def deid(out, *extra):
        args = list(base)
        args[2] = str(out)
        with pytest.raises(SystemExit) as info:
            main(args + list(extra))
        return info.value.code

    assert deid(tmp_path / "kept") == 0
    kept = (tmp_path / "kept" / "r.txt").read_text(encoding="utf-8")
    assert "Su madre la acompaña" in kept
    assert (
        json.loads((tmp_path / "kept" / "run_fingerprint.json").read_text())["keep_kinship"] is True
    )
    assert deid(tmp_path / "swapped", "--no-keep-kinship") == 0
    swapped = (tmp_path / "swapped" / "r.txt").read_text(encoding="utf-8")
    assert "Su madre" not in swapped and swapped != kept
    assert (
        json.loads((tmp_path / "swapped" / "run_fingerprint.json").read_text())["keep_kinship"]
        is False
    )
    # the same setting from a policy file gives the same output
    policy = tmp_path / "policy.toml"
    policy.write_text("keep_kinship = false\n", encoding="utf-8")
    assert deid(tmp_path / "by_policy", "--policy", str(policy)) == 0
    assert (tmp_path / "by_policy" / "r.txt").read_text(encoding="utf-8") == swapped
    # and the flag overrides the policy
    assert deid(tmp_path / "flag_wins", "--policy", str(policy), "--keep-kinship") == 0
    assert (tmp_path / "flag_wins" / "r.txt").read_text(encoding="utf-8") == kept
    # resuming a folder made with the other setting is refused (the fingerprint differs)
    assert deid(tmp_path / "kept", "--no-keep-kinship") == 2
