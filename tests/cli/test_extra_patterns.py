"""A hospital's own field keys as files: `deidentify --extra-patterns DIR`, the policy's
`field_keys`, and `add-patterns MODEL DIR OUTPUT_MODEL` (invented keys and reports)."""

import json
from pathlib import Path

import pytest
import spacy
from command_line import cli

from meddocan_deid.deid.options import DeidOptions
from meddocan_deid.deid.policy import PolicyError, load_policy, parse_policy
from meddocan_deid.engine import run
from meddocan_deid.pipeline.fields import add_field_files, read_field_files

REPORT = (
    "Datos del paciente.\nClave Zeta: 44 7100\n"
    "Tutora de rotación: Quelvoria Zubimendi\nInforme clínico.\n"
)
KEYS = [
    {"label": "ID_SUJETO_ASISTENCIA", "kind": "id", "keys": ["Clave Zeta"]},
    {"label": "NOMBRE_PERSONAL_SANITARIO", "kind": "name", "keys": ["Tutora de rotación"]},
]


def write_keys(folder: Path, entries=KEYS, name="hospital.jsonl", blank_line=True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(e, ensure_ascii=False) for e in entries]
    if blank_line:
        lines.insert(1, "")
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def ents(nlp, text=REPORT):
    return [(e.label_, e.text) for e in nlp(text).ents]


@pytest.mark.parametrize(
    "content,name,message",
    [
        (
            '{"label": "FECHAS", "kind": "date", "keys": ["Día X"]}\n'
            '{"label": "FECHAS", "kind": "date", "keys": ["a"],\n',
            "bad.jsonl",
            "bad.jsonl: line 2: not valid JSON",
        ),
        ('["Clave Zeta"]\n', "list.jsonl", "list.jsonl: entry 1: expected a JSON object"),
        (
            '{"label": "FECHAS", "kind": "date", "keys": ["Día X"]}\n\n'
            '{"label": "FECHA", "kind": "date", "keys": ["b"]}\n',
            "label.jsonl",
            "label.jsonl: entry 2: unknown label",
        ),
        (
            '{"label": "FECHAS", "kind": "date", "key": ["Día X"]}\n',
            "typo.jsonl",
            "typo.jsonl: entry 1: unknown field 'key'",
        ),
        (
            '{"label": "FECHAS", "kind": "date", "keys": "Día X"}\n',
            "str.jsonl",
            "str.jsonl: entry 1: 'keys' must be a list",
        ),
        (b"\xff\xfe", "bytes.jsonl", "bytes.jsonl: not valid UTF-8"),
        ("\n\n", "empty.jsonl", "empty.jsonl: no entry"),
    ],
)
def test_bad_files_name_the_file_and_the_entry(tmp_path, content, name, message):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(ValueError) as err:
        read_field_files(tmp_path)
    assert message in str(err.value) and str(tmp_path) in str(err.value)


def test_missing_folder_and_folder_without_jsonl(tmp_path):
    with pytest.raises(ValueError, match="field-key folder not found"):
        read_field_files(tmp_path / "missing")
    (tmp_path / "notes.txt").write_text("Clave Zeta\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"no \.jsonl field-key file"):
        read_field_files(tmp_path)


def test_files_extend_the_fields_component(tmp_path):
    folder = write_keys(tmp_path / "keys")
    write_keys(
        folder, [{"label": "FECHAS", "kind": "date", "keys": ["Día Zeta"]}], name="more.jsonl"
    )
    read = read_field_files(folder)
    assert [Path(source).name for source, _ in read] == [
        "hospital.jsonl",
        "more.jsonl",
    ]  # sorted by name
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_fields", name="fields")
    text = "Día Zeta: 12/03/2020\n" + REPORT
    before = nlp.get_pipe("fields").find(text)
    assert len(add_field_files(nlp, folder)) == 3
    found = {(text[s:e], label) for s, e, label in nlp.get_pipe("fields").find(text)}
    assert {
        ("12/03/2020", "FECHAS"),
        ("44 7100", "ID_SUJETO_ASISTENCIA"),
        ("Quelvoria Zubimendi", "NOMBRE_PERSONAL_SANITARIO"),
    } <= found - set(before)
    with pytest.raises(ValueError, match="no 'fields' component"):
        add_field_files(spacy.blank("es"), folder)


def test_policy_field_keys_relative_to_the_policy_file(tmp_path):
    write_keys(tmp_path / "keys")
    (tmp_path / "policy.toml").write_text('field_keys = "keys"\n', encoding="utf-8")
    policy = load_policy(tmp_path / "policy.toml")
    assert policy.field_keys == tmp_path / "keys"
    assert policy.apply(DeidOptions()).extra_patterns == tmp_path / "keys"
    # a folder given on the command line wins over the policy's
    assert (
        policy.apply(DeidOptions(extra_patterns=tmp_path / "other")).extra_patterns
        == tmp_path / "other"
    )
    with pytest.raises(PolicyError, match="field_keys: expected the path"):
        parse_policy({"field_keys": 3}, "p.toml")


def test_run_adds_the_keys_and_fingerprints_them(tmp_path, rule_nlp):
    from meddocan_deid.errors import RunError

    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(REPORT, encoding="utf-8")
    plain = run(inp, tmp_path / "plain", "tag", None, nlp=rule_nlp, progress=False)
    assert plain["fingerprint"]["field_keys"] == "none"
    assert "Quelvoria" in (tmp_path / "plain" / "r.txt").read_text(encoding="utf-8")
    import copy

    nlp = copy.deepcopy(rule_nlp)  # the run adds the keys to the pipeline it is given
    keys = write_keys(tmp_path / "keys")
    rep = run(
        inp,
        tmp_path / "keyed",
        "tag",
        None,
        nlp=nlp,
        progress=False,
        options=DeidOptions(extra_patterns=keys),
    )
    text = (tmp_path / "keyed" / "r.txt").read_text(encoding="utf-8")
    assert "Quelvoria" not in text and "44 7100" not in text
    assert "[NOMBRE_PERSONAL_SANITARIO]" in text and "[ID_SUJETO_ASISTENCIA]" in text
    assert rep["fingerprint"]["field_keys"] not in (None, "none")
    # resuming the keyed folder without the keys is refused: the outputs would differ
    with pytest.raises(RunError, match="field_keys"):
        run(inp, tmp_path / "keyed", "tag", None, nlp=rule_nlp, progress=False)


def test_cli_flag_errors_and_add_patterns(tmp_path, model_dir):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "r.txt").write_text(REPORT, encoding="utf-8")
    keys = write_keys(tmp_path / "keys")
    r = cli(
        "deidentify",
        inp,
        tmp_path / "out",
        "--mode",
        "tag",
        "--model",
        model_dir,
        "--extra-patterns",
        keys,
    )
    assert r.returncode == 0, r.stderr
    assert "[NOMBRE_PERSONAL_SANITARIO]" in (tmp_path / "out" / "r.txt").read_text(encoding="utf-8")
    report = json.loads((tmp_path / "out" / "run_report.json").read_text(encoding="utf-8"))
    assert report["options"]["extra_patterns"] == str(keys)
    # a bad entry: exit 2 before the model loads, one line naming the file and the entry,
    # nothing written
    bad = write_keys(
        tmp_path / "bad", KEYS + [{"label": "NOMBRE", "kind": "name", "keys": ["Jefa Zeta"]}]
    )
    r = cli(
        "deidentify",
        inp,
        tmp_path / "out2",
        "--mode",
        "tag",
        "--model",
        model_dir,
        "--extra-patterns",
        bad,
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert (
        f"{bad / 'hospital.jsonl'}: entry 3: unknown label" in r.stderr
        and not (tmp_path / "out2").exists()
    )
    # the same keys saved into a pipeline: no flag needed, version tagged
    saved = tmp_path / "hospital_model"
    r = cli("add-patterns", model_dir, keys, saved)
    assert r.returncode == 0, r.stderr
    assert "2 entries" in r.stderr
    nlp = spacy.load(saved)
    assert ("NOMBRE_PERSONAL_SANITARIO", "Quelvoria Zubimendi") in ents(nlp)
    assert nlp.meta["version"].endswith("+keys")
    r = cli("add-patterns", model_dir, keys, saved)  # never over an existing folder
    assert r.returncode == 2 and "already exists" in r.stderr
    r = cli("add-patterns", model_dir, bad, tmp_path / "m2")
    assert (
        r.returncode == 2
        and "entry 3: unknown label" in r.stderr
        and not (tmp_path / "m2").exists()
    )
