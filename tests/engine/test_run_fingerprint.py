"""Runs that cannot mix: the output folder's run fingerprint, refusals, --overwrite and
resume, and what the run report records. Every report text here is invented."""

import hashlib
import hmac
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from command_line import cli, report_counts

import meddocan_deid.engine.runner as engine_run
from meddocan_deid.deid import fingerprint as fp
from meddocan_deid.deid.options import DeidOptions
from meddocan_deid.engine import RunError, run
from meddocan_deid.engine.output import write_report as real_write_report

KEY = b"fingerprint-key-0123456789abcdef"
OTHER_KEY = b"another-key-fedcba9876543210xyzw"
TEMPLATE = (
    "Datos del paciente.\nNombre: {name}.\nApellidos: {surname}.\nNHC: {nhc}.\n"
    "Fecha de Ingreso: {day:02d}/03/2004.\n"
    "Informe clínico del paciente: mujer de 52 años que ingresa por disnea.\n"
)
NAMES = ["Leire", "Olvido", "Telmo", "Anselmo"]
SURNAMES = ["Quintanar Ibáñez", "Escobedo Lasa", "Urquiza Nieto"]


def make_report(i: int) -> str:
    return TEMPLATE.format(
        name=NAMES[i % 4], surname=SURNAMES[i % 3], nhc=4300000 + 11 * i, day=1 + i % 27
    )


def write_folder(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"nota{i:02d}.txt").write_text(make_report(i), encoding="utf-8")


def snapshot(folder: Path):
    """Every file of a folder with its bytes and modification time."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_surrogate_then_tag_is_refused_and_changes_nothing(tmp_path, model_dir):
    """The privacy officer's case: a surrogate run resumed with --mode tag into the same folder."""
    inp, out, key_file = tmp_path / "in", tmp_path / "out", tmp_path / "deid.key"
    write_folder(inp, 3)
    assert cli("keygen", key_file).returncode == 0
    r = cli(
        "deidentify", inp, out, "--mode", "surrogate", "--key-file", key_file, "--model", model_dir
    )
    assert r.returncode == 0, r.stderr
    before = snapshot(out)
    assert json.loads((out / "run_report.json").read_text())["mode"] == "surrogate"
    r = cli("deidentify", inp, out, "--mode", "tag", "--model", model_dir)
    assert r.returncode == 2
    assert "mode: 'surrogate' (before) vs 'tag' (now)" in r.stderr
    assert "--overwrite" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert snapshot(out) == before  # run_report.json, fingerprint and reports untouched
    # the key file's content never appears in what the refusal or the folder shows
    key_text = key_file.read_text().strip()
    assert key_text not in r.stderr
    assert all(key_text.encode() not in data for data, _ in before.values())


@pytest.fixture
def first_run(tmp_path, rule_nlp):
    """A finished surrogate run of 3 reports: (input, output, snapshot of the output)."""
    inp, out = tmp_path / "in", tmp_path / "out"
    write_folder(inp, 3)
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"]["written"] == 3
    return inp, out, snapshot(out)


POLICY = {"labels": {"FECHAS": "shift"}, "name": "invented policy"}

# field -> (what changes in the second run, a fragment the refusal must show)
FIELD_CHANGES = {
    "mode": ({"mode": "mask", "key": None}, "mode: 'surrogate' (before) vs 'mask' (now)"),
    "policy_digest": (
        {"policy_digest": fp.digest_of(POLICY)},
        f"policy_digest: 'none' (before) vs '{fp.digest_of(POLICY)}' (now)",
    ),
    "key": ({"key": OTHER_KEY}, "key differs"),
    "model_name": ({"meta": ("name", "otro_modelo")}, "model_name: "),
    "model_version": ({"meta": ("version", "9.8.7")}, "(before) vs '9.8.7' (now)"),
    "library_version": ({"library_version": "7.7.7"}, "library_version: "),
    "privacy": ({"privacy": "high"}, "privacy: 'balanced' (before) vs 'high' (now)"),
}


@pytest.mark.parametrize("field", sorted(FIELD_CHANGES))
def test_each_fingerprint_field_change_is_refused_and_named(
    field, first_run, rule_nlp, monkeypatch
):
    inp, out, before = first_run
    change, fragment = FIELD_CHANGES[field]
    kwargs = {"mode": "surrogate", "key": KEY}
    kwargs.update({k: v for k, v in change.items() if k in ("mode", "key", "policy_digest")})
    if "meta" in change:
        monkeypatch.setitem(rule_nlp.meta, *change["meta"])
    if "library_version" in change:
        monkeypatch.setattr(engine_run, "__version__", change["library_version"])
    if "privacy" in change:
        monkeypatch.setattr(rule_nlp.get_pipe("privacy"), "level", change["privacy"])
    mode, key = kwargs.pop("mode"), kwargs.pop("key")
    with pytest.raises(RunError) as err:
        run(inp, out, mode, key, nlp=rule_nlp, progress=False, **kwargs)
    msg = str(err.value)
    assert fragment in msg and "will not resume" in msg and "--overwrite" in msg
    if field == "library_version":
        assert f"'{engine_run.__version__}' (now)" in msg and "'7.7.7' (now)" in msg
    if field == "model_name":
        assert "_otro_modelo' (now)" in msg  # lang_name from nlp.meta
    # only the field that changed is named (a mode change also drops the key)
    diff = msg.split("will not resume into it", 1)[1].split(". Rerun", 1)[0]
    named = {name for name in fp.FIELDS if f"{name}:" in diff} | (
        {"key"} if "key" in diff else set()
    )
    expected = {"mode", "key"} if field == "mode" else {field}
    assert named == expected, msg
    assert KEY.decode() not in msg and OTHER_KEY.decode() not in msg
    assert snapshot(out) == before  # nothing written, run_report.json not overwritten


def test_overwrite_redoes_the_run_and_writes_the_new_fingerprint(first_run, rule_nlp):
    inp, out, before = first_run
    with pytest.raises(RunError):
        run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=False, overwrite=True)
    assert rep["reports"] == report_counts(3, 3)
    stored = json.loads((out / fp.FINGERPRINT_NAME).read_text())
    assert (
        stored["mode"] == "tag"
        and stored["key_fingerprint"] == "none"
        and fp.UNFINISHED not in stored
    )
    assert (
        rep["fingerprint"] == stored
        and json.loads((out / "run_report.json").read_text())["mode"] == "tag"
    )
    assert all(
        "[NOMBRE_SUJETO_ASISTENCIA]" in (out / f"nota{i:02d}.txt").read_text() for i in range(3)
    )
    # the new run now resumes like any other
    rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(3, 0, skipped=3)


def test_same_fingerprint_resumes(first_run, rule_nlp):
    inp, out, before = first_run
    (out / "nota01.txt").unlink()
    rep = run(inp, out, "surrogate", KEY, nlp=rule_nlp, progress=False)
    assert rep["reports"] == report_counts(3, 1, skipped=2)
    after = snapshot(out)
    assert after["nota01.txt"][0] == before["nota01.txt"][0]
    assert after["nota00.txt"] == before["nota00.txt"]  # skipped: not rewritten
    assert after[fp.FINGERPRINT_NAME][0] == before[fp.FINGERPRINT_NAME][0]


def test_interrupted_overwrite_is_not_resumed(first_run, rule_nlp, monkeypatch):
    """A kill during an --overwrite into another run's folder leaves reports of both runs:
    a plain resume must not skip the old ones."""
    inp, out, _ = first_run
    calls = []

    def write_then_interrupt(*args, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(1)
        real_write_report(*args, **kwargs)

    monkeypatch.setattr("meddocan_deid.engine.output.write_report", write_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(inp, out, "mask", None, nlp=rule_nlp, progress=False, overwrite=True)
    monkeypatch.undo()
    with pytest.raises(RunError, match="did not finish"):
        run(inp, out, "mask", None, nlp=rule_nlp, progress=False)
    rep = run(inp, out, "mask", None, nlp=rule_nlp, progress=False, overwrite=True)
    assert rep["reports"]["written"] == 3
    assert run(inp, out, "mask", None, nlp=rule_nlp, progress=False)["reports"]["skipped"] == 3


@pytest.mark.parametrize(
    "content,message",
    [
        (
            None,
            "no run_fingerprint.json",
        ),  # reports from an older version: cannot tell how they were made
        ("{not json", "unreadable run fingerprint"),
        ("[1, 2]", "not a run fingerprint"),
    ],
)
def test_folder_without_a_usable_fingerprint_is_not_resumed(tmp_path, rule_nlp, content, message):
    inp, out = tmp_path / "in", tmp_path / "out"
    write_folder(inp, 2)
    out.mkdir()
    (out / "nota00.txt").write_text("texto de otra herramienta\n", encoding="utf-8")
    if content is not None:
        (out / fp.FINGERPRINT_NAME).write_text(content, encoding="utf-8")
    with pytest.raises(RunError, match=message):
        run(inp, out, "tag", None, nlp=rule_nlp, progress=False)
    assert not (out / "run_report.json").exists()
    rep = run(inp, out, "tag", None, nlp=rule_nlp, progress=False, overwrite=True)
    assert (
        rep["reports"]["written"] == 2
        and json.loads((out / fp.FINGERPRINT_NAME).read_text())["mode"] == "tag"
    )


def test_key_fingerprint_identifies_the_key_without_holding_it():
    expected = hmac.new(KEY, b"meddocan-deid key fingerprint v1", hashlib.sha256).hexdigest()
    assert fp.key_fingerprint(KEY) == expected
    assert fp.key_fingerprint(OTHER_KEY) != expected and fp.key_fingerprint(None) == "none"
    assert KEY.hex() not in expected and hashlib.sha256(KEY).hexdigest() != expected


@dataclass
class _Policy:
    labels: dict
    shift_days: int


@pytest.mark.parametrize(
    "a,b,same",
    [
        ({"b": 1, "a": [1, 2]}, {"a": [1, 2], "b": 1}, True),  # key order does not matter
        ({"a": [1, 2]}, {"a": [2, 1]}, False),  # list order does
        ({"a": "ñ"}, {"a": "n"}, False),
        (_Policy({"FECHAS": "shift"}, 10), {"labels": {"FECHAS": "shift"}, "shift_days": 10}, True),
        (_Policy({"FECHAS": "shift"}, 10), _Policy({"FECHAS": "shift"}, 11), False),
        ({"p": Path("a/b")}, {"p": "a/b"}, True),
    ],
)
def test_digest_of_is_canonical(a, b, same):
    assert (fp.digest_of(a) == fp.digest_of(b)) is same
    assert len(fp.digest_of(a)) == 64


def test_run_report_records_options_gazetteer_and_fingerprint(tmp_path, model_dir):
    inp, out, key_file = tmp_path / "in", tmp_path / "out", tmp_path / "deid.key"
    write_folder(inp, 2)
    assert cli("keygen", key_file).returncode == 0
    gaz = tmp_path / "gaz"
    gaz.mkdir()
    (gaz / "Nombres.txt").write_text("Filomena\nGaudencio\n", encoding="utf-8")
    r = cli(
        "deidentify",
        inp,
        out,
        "--mode",
        "surrogate",
        "--key-file",
        key_file,
        "--model",
        model_dir,
        "--gazetteer",
        gaz,
        "--batch-size",
        "7",
        "--no-keep-age",
    )
    assert r.returncode == 0, r.stderr
    rep = json.loads((out / "run_report.json").read_text())
    opts = rep["options"]
    assert opts["mode"] == "surrogate" and opts["batch_size"] == 7 and opts["keep_age"] is False
    assert (
        opts["encoding"] == "utf-8"
        and opts["overwrite"] is False
        and opts["key_file"] == str(key_file)
    )
    assert rep["gazetteer"] == str(gaz.resolve())
    assert rep["fingerprint"] == json.loads((out / fp.FINGERPRINT_NAME).read_text())
    assert rep["fingerprint"]["key_fingerprint"] == fp.key_fingerprint(
        key_file.read_bytes().strip()
    )
    assert key_file.read_text().strip() not in (out / "run_report.json").read_text()


@pytest.mark.parametrize(
    "mode,env,expected",
    [
        ("tag", True, None),  # tag mode draws no surrogate
        ("surrogate", True, "ENV"),
        ("surrogate", False, "pipeline"),  # the test pipeline carries the gazetteer in its vocab
    ],
)
def test_gazetteer_recorded(tmp_path, rule_nlp, monkeypatch, mode, env, expected):
    gaz = tmp_path / "gaz"
    gaz.mkdir()
    (gaz / "Hospitales.txt").write_text("Hospital Inventado de Prueba\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # no ../shared/meddocan/gazetteer from here
    if env:
        monkeypatch.setenv("MEDDOCAN_GAZETTEER", str(gaz))
    else:
        monkeypatch.delenv("MEDDOCAN_GAZETTEER", raising=False)
    want = str(gaz.resolve()) if expected == "ENV" else expected
    inp = tmp_path / "in"
    write_folder(inp, 1)
    rep = run(
        inp,
        tmp_path / "out",
        mode,
        KEY if mode == "surrogate" else None,
        nlp=rule_nlp,
        progress=False,
        options=DeidOptions(),
    )
    assert rep["gazetteer"] == want and rep["options"]["mode"] == mode


@pytest.mark.parametrize("random_key,hinted", [(True, True), (False, False)])
def test_random_key_runs_cannot_be_resumed(tmp_path, random_key, hinted):
    base = {
        "mode": "surrogate",
        "policy_digest": "none",
        "model_name": "es_x",
        "model_version": "1.0.0",
        "library_version": "0.1.0",
    }
    old = {**base, "key_fingerprint": fp.key_fingerprint(KEY)}
    new = {**base, "key_fingerprint": fp.key_fingerprint(OTHER_KEY)}
    fp.write_fingerprint(tmp_path, old)
    with pytest.raises(fp.FingerprintMismatch) as err:
        fp.check_resume(tmp_path, new, overwrite=False, random_key=random_key)
    assert ("a --random-key run cannot be resumed" in str(err.value)) is hinted
    assert fp.check_resume(tmp_path, {**old}, overwrite=False) is False  # same fingerprint: resume
    assert (
        fp.check_resume(tmp_path, new, overwrite=True) is False
    )  # no report in the folder: nothing to mark
    (tmp_path / "r.txt").write_text("x", encoding="utf-8")
    assert fp.check_resume(tmp_path, new, overwrite=True) is True  # replaces another run's reports
