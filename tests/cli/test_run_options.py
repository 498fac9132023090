"""`RunOptions`: the options `deidentify` and `deidentify-spark` share, declared once, and the one
place where the flags, the policy and `--option NAME=VALUE` become a run's key and DeidOptions."""

from dataclasses import fields

import pytest
import typer

from meddocan_deid.cli.app import app
from meddocan_deid.cli.options import Mode, RunOptions
from meddocan_deid.engine import RunError


def test_both_commands_take_the_same_declared_options():
    commands = typer.main.get_command(app).commands
    deidentify = {p.name: p for p in commands["deidentify"].params}
    spark = {p.name: p for p in commands["deidentify-spark"].params}
    shared = [f.name for f in fields(RunOptions)]
    assert set(shared) <= set(deidentify) and set(shared) <= set(spark)
    for name in shared:
        assert deidentify[name].opts == spark[name].opts, name
        assert deidentify[name].default == spark[name].default, name
    # Spark names its columns as the batch command does: no second spelling of them
    assert not {"id_col", "text_col", "patient_col"} & set(spark)


def test_option_wins_over_the_flag_and_the_flag_over_the_policy(tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text("keep_kinship = false\nage_threshold = 80\n", encoding="utf-8")
    base = RunOptions(mode=Mode.tag, policy=policy)
    _key, options = base.key_and_options()
    assert options.keep_kinship is False and options.age_threshold == 80  # the policy's
    _key, options = RunOptions(mode=Mode.tag, policy=policy, keep_kinship=True).key_and_options()
    assert options.keep_kinship is True  # the flag over the policy
    given = RunOptions(
        mode=Mode.tag,
        policy=policy,
        keep_kinship=True,
        tag_numbering=True,
        option=["keep_kinship=false", "tag_numbering=false", "age_threshold=70"],
    )
    _key, options = given.key_and_options()
    assert (options.keep_kinship, options.tag_numbering, options.age_threshold) == (
        False,
        False,
        70,
    )


def test_the_key_comes_only_when_a_label_needs_it(tmp_path, monkeypatch):
    monkeypatch.delenv("MEDDOCAN_DEID_KEY", raising=False)
    assert RunOptions(mode=Mode.mask).key_and_options()[0] is None
    with pytest.raises(RunError, match="needs a key"):
        RunOptions(mode=Mode.surrogate).key_and_options()
    key, _options = RunOptions(mode=Mode.surrogate, random_key=True).key_and_options()
    assert isinstance(key, bytes) and len(key) >= 16


def test_bad_values_are_named_in_one_line(tmp_path):
    with pytest.raises(RunError, match="--option tag_numbrng: unknown option"):
        RunOptions(mode=Mode.tag, option=["tag_numbrng=true"]).key_and_options()
    with pytest.raises(RunError, match="expected COLUMN:LABEL"):
        RunOptions(mode=Mode.tag, phi_column=["nombre"]).phi_columns()
    with pytest.raises(RunError, match="given twice"):
        RunOptions(mode=Mode.tag, phi_column=["a:FECHAS", "a:ID_SUJETO_ASISTENCIA"]).phi_columns()
    spec = RunOptions(mode=Mode.tag, text_column=["nota"]).table_spec(id_column="id")
    assert (spec.id_column, spec.text_columns, spec.patient_column) == ("id", ("nota",), None)
