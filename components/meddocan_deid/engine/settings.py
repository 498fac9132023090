"""The key and the DeidOptions of a run, from the options the command line and Spark share."""

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..deid.keys import DeidKeyError, load_key
from ..deid.keys import random_key as fresh_key
from ..deid.options import DeidOptions, as_options, needs_key, read_tag_table
from ..deid.policy import PolicyError, load_policy
from ..errors import RunError
from ..pipeline.fields import read_field_files

# flags a value of None leaves to the policy (or to the default): set over the policy's
OVER_POLICY = ("keep_kinship", "extra_patterns")


def resolve_key_and_options(
    mode: str,
    *,
    key_file: Path | None,
    random_key: bool,
    tag_table: Path | None = None,
    flags: Mapping[str, Any] | None = None,
    policy: Path | None = None,
    option_values: Mapping[str, Any] | None = None,
    key_wanted: bool = False,
) -> tuple[bytes | None, DeidOptions]:
    """The key and the DeidOptions of a run, for `deidentify` and `deidentify-spark` alike, so
    that both read the key the same way: `--key-file`, else MEDDOCAN_DEID_KEY, else
    `--random-key`; never a command-line value. The options, in order: `flags` (DeidOptions
    fields by name; `keep_kinship` and `extra_patterns` set over the policy's unless None),
    the tag table's names, the policy, then `option_values` (the `--option NAME=VALUE` items,
    `deid.options.parse_options`: checked against DeidOptions and set last). `key_wanted`: the
    key is read even when no label uses the surrogate operator (FHIR and HL7 v2 ids, hashes and
    date offsets are keyed in every mode; the run says which file lacks it). Raises RunError
    with a one-line reason."""
    flags = dict(flags or {})
    try:
        run_policy = load_policy(policy) if policy is not None else None
    except PolicyError as err:
        raise RunError(str(err)) from None
    try:  # checked before the key is read: a typo fails first
        given = as_options(option_values or {}, base=DeidOptions())
    except ValueError as err:
        raise RunError(f"--{err}") from None
    # the key is needed only when some label uses the surrogate operator
    uses_surrogate = needs_key(mode, run_policy.apply() if run_policy is not None else None)
    key = _run_key(key_file, random_key, uses_surrogate, key_wanted)
    options = _layered_options(flags, tag_table, run_policy)
    if option_values:
        options = replace(options, **{name: getattr(given, name) for name in option_values})
    _check_option_files(options)
    return key, options


def _run_key(
    key_file: Path | None, random_key: bool, uses_surrogate: bool, key_wanted: bool
) -> bytes | None:
    """The run's key when a label uses the surrogate operator or it is wanted: `--key-file`,
    else MEDDOCAN_DEID_KEY, else a fresh one with `--random-key`; RunError for both options,
    a bad key, or none where the surrogate operator needs one."""
    if not (uses_surrogate or key_wanted):
        return None
    if random_key and key_file is not None:
        raise RunError("give either --key-file or --random-key, not both")
    if random_key:
        return fresh_key()
    try:
        key = load_key(key_file)
    except DeidKeyError as err:
        raise RunError(str(err)) from None
    if key is None and uses_surrogate:
        raise RunError(
            "surrogate mode needs a key: --key-file FILE or the environment variable "
            "MEDDOCAN_DEID_KEY (or --random-key for a throwaway key)"
        )
    return key


def _layered_options(flags: dict[str, Any], tag_table: Path | None, run_policy) -> DeidOptions:
    """The options of the flags and the tag table's names, then the policy's, then the flags
    set over the policy (OVER_POLICY, unless None); RunError for a bad tag table."""
    try:
        names = read_tag_table(tag_table) if tag_table else {}
    except ValueError as err:
        raise RunError(str(err)) from None
    over_policy = {name: flags.pop(name) for name in OVER_POLICY if flags.get(name) is not None}
    for name in OVER_POLICY:
        flags.pop(name, None)
    options = DeidOptions(tag_names=names, **flags)
    if run_policy is not None:
        options = run_policy.apply(options)
    return replace(options, **over_policy)


def _check_option_files(options: DeidOptions) -> None:
    """RunError for a gazetteer folder not found or extra pattern files that cannot be read
    (checked now, before the model loads)."""
    if options.gazetteer is not None and not Path(options.gazetteer).is_dir():
        raise RunError(f"{options.gazetteer}: gazetteer folder not found")
    if options.extra_patterns is not None:
        try:
            read_field_files(options.extra_patterns)
        except ValueError as err:
            raise RunError(f"--extra-patterns: {err}") from None
