"""DeidOptions as the one description of the options: checked by name from a dict, the
command line's `--option NAME=VALUE` and a service request's `options`."""

import pytest

from meddocan_deid.deid.options import DeidOptions, as_options, option_model, parse_options
from meddocan_deid.engine import RunError, resolve_key_and_options


def test_mapping_is_checked_against_the_fields():
    options = as_options({"tag_numbering": True, "age_threshold": "80", "date_shift": [3, 5]})
    assert options == DeidOptions(tag_numbering=True, age_threshold=80, date_shift=(3, 5))
    assert as_options(options) is options
    with pytest.raises(ValueError, match=r"^option nope: unknown option"):
        as_options({"nope": 1})
    with pytest.raises(ValueError, match=r"^option age_threshold: "):
        as_options({"age_threshold": "old"})
    with pytest.raises(ValueError, match=r"unknown label"):
        as_options({"tag_names": {"NOT_A_LABEL": "X"}})


def test_request_options_leave_out_server_paths():
    assert "gazetteer" not in option_model(request=True).model_fields
    assert "gazetteer" in option_model().model_fields
    with pytest.raises(ValueError, match=r"^option extra_patterns: unknown option"):
        as_options({"extra_patterns": "/tmp"}, request=True)


def test_command_line_items():
    assert parse_options(
        ["keep_sex=false", "age_aggregate=90", 'tag_names={"FECHAS": "FECHA"}']
    ) == {"keep_sex": False, "age_aggregate": "90", "tag_names": {"FECHAS": "FECHA"}}
    for bad, message in (
        (["keep_sex"], "expects NAME=VALUE"),
        (["x=1"], "--option x: unknown"),
        (["keep_sex=true", "keep_sex=false"], "given twice"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_options(bad)


def test_run_options_win_over_the_flags():
    flags = dict(
        key_file=None,
        random_key=False,
        tag_table=None,
        flags=dict(
            tag_numbering=False,
            keep_sex=True,
            keep_age=True,
            age_aggregate="90 años o más",
            gazetteer=None,
            max_chars=50_000_000,
        ),
    )
    _, options = resolve_key_and_options(
        "tag", **flags, option_values={"tag_numbering": True, "mask_char": "#"}
    )
    assert options.tag_numbering and options.mask_char == "#" and options.max_chars == 50_000_000
    with pytest.raises(RunError, match=r"^--option age_threshold: "):
        resolve_key_and_options("tag", **flags, option_values={"age_threshold": "old"})
