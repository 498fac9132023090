"""The key and the operator options of a run, from the options the command line and Spark share."""

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..deid.keys import DeidKeyError, load_key
from ..deid.keys import random_key as fresh_key
from ..deid.options import DeidOptions, as_options, needs_key, read_tag_table
from ..deid.policy import PolicyError, load_policy
from ..errors import GenericModelError, RunError
from ..pipeline.fields import read_field_files
from ..pipeline.privacy import load_with_privacy


def resolve_key_and_options(
    mode: str,
    *,
    key_file: Path | None,
    random_key: bool,
    tag_table: Path | None,
    tag_numbering: bool,
    keep_sex: bool,
    keep_age: bool,
    age_aggregate: str,
    gazetteer: Path | None,
    max_chars: int,
    policy: Path | None = None,
    keep_kinship: bool | None = None,
    extra_patterns: Path | None = None,
    option_values: Mapping[str, Any] | None = None,
) -> tuple[bytes | None, DeidOptions]:
    """The key and operator options of a run, shared by `deidentify` and `deidentify-spark` so
    that both read the key the same way: `--key-file`, else MEDDOCAN_DEID_KEY, else
    `--random-key`; never a command-line value. `keep_kinship` None: the policy's, else True
    (a value given here overrides the policy's). `option_values`: the `--option NAME=VALUE`
    items (`deid.options.parse_options`), checked against DeidOptions and set last, over the
    flags and the policy. Raises RunError with a one-line reason."""
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

    key = None
    if uses_surrogate:
        if random_key and key_file is not None:
            raise RunError("give either --key-file or --random-key, not both")
        if random_key:
            key = fresh_key()
        else:
            try:
                key = load_key(key_file)
            except DeidKeyError as err:
                raise RunError(str(err)) from None
            if key is None:
                raise RunError(
                    "surrogate mode needs a key: --key-file FILE or the environment variable "
                    "MEDDOCAN_DEID_KEY (or --random-key for a throwaway key)"
                )
    try:
        names = read_tag_table(tag_table) if tag_table else {}
    except ValueError as err:
        raise RunError(str(err)) from None
    options = DeidOptions(
        tag_names=names,
        tag_numbering=tag_numbering,
        keep_sex=keep_sex,
        keep_age=keep_age,
        age_aggregate=age_aggregate,
        gazetteer=gazetteer,
        max_chars=max_chars,
    )
    if run_policy is not None:
        options = run_policy.apply(options)
    if keep_kinship is not None:
        options = replace(options, keep_kinship=keep_kinship)
    if extra_patterns is not None:  # overrides the policy's field_keys
        options = replace(options, extra_patterns=extra_patterns)
    if option_values:
        options = replace(options, **{name: getattr(given, name) for name in option_values})
    if options.gazetteer is not None and not Path(options.gazetteer).is_dir():
        raise RunError(f"{options.gazetteer}: gazetteer folder not found")
    if options.extra_patterns is not None:  # checked now, before the model loads
        try:
            read_field_files(options.extra_patterns)
        except ValueError as err:
            raise RunError(f"--extra-patterns: {err}") from None
    return key, options


def load_model(name: str, privacy: str | None = None):
    """The pipeline `name` at the privacy level `privacy`; RunError (one line naming the model)
    when it cannot be loaded."""

    try:
        nlp = load_with_privacy(name, privacy)
        if privacy == "high":  # a missing general-Spanish model fails now, not on every report
            nlp.get_pipe("privacy").generic.model  # noqa: B018
        return nlp
    except GenericModelError as err:
        raise RunError(str(err)) from None
    except Exception as err:  # noqa: BLE001
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise RunError(
            f"cannot load the model {name!r} ({type(err).__name__}{': ' + first if first else ''})"
        ) from None
