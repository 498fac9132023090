"""Options of the de-identification operators, described once.

`DeidOptions` is the one description of the options: each field has its type, its default and
its help (field metadata). The command line (`--option NAME=VALUE`, cli/options.py), the
service (a request's `options`, service/schemas.py) and the Python API (`options=` a dict)
read them from here: `option_model` is the pydantic model of the fields a caller may set,
`as_options` validates a mapping into a DeidOptions, `parse_option` reads one `NAME=VALUE`.
"""

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from string import Formatter
from typing import Any, Optional, Union, get_type_hints

from pydantic import ConfigDict, Field, ValidationError, create_model, field_validator

from ..constants import LABELS, MODES
from ..country_data import check_country

# what one label may get from a policy: a mode, or `keep` (annotated, left in clear)
LABEL_MODES = MODES + ("keep",)


def _option(
    default: Any = MISSING,
    *,
    help: str,
    factory: Any = MISSING,
    settable: bool = True,
    request: bool = True,
    check: Any = None,
) -> Any:
    """A DeidOptions field. settable: a caller may set it by name (`--option`, a request's
    `options`, a dict); request: the service accepts it too (not a path on the server);
    check: value -> value or ValueError, run on every DeidOptions made and by `option_model`."""
    return field(
        default=default,
        default_factory=factory,
        metadata={
            "help": help,
            "settable": settable,
            "request": request and settable,
            "check": check,
        },
    )


TAG_FIELDS = ("label", "n")


def _check_country(value: str | None) -> str | None:
    """None, or a country code the de-identifier knows (upper-cased)."""
    return None if value is None else check_country(value)


def check_tag_format(template: str) -> str:
    """`template` when it is a tag template naming only {label} and {n}; ValueError otherwise."""
    try:
        names = {name for _, name, _, _ in Formatter().parse(template) if name is not None}
    except ValueError as err:
        raise ValueError(f"not a template ({err})") from None
    unknown = sorted(names - set(TAG_FIELDS))
    if unknown:
        raise ValueError(f"unknown field {{{unknown[0]}}} (expected {{label}} and {{n}})")
    return template


@dataclass
class DeidOptions:
    """What the operators do beyond the mode (each field's help is in its metadata;
    `option_help()` lists them). A `policy` is applied to options by `Policy.apply`, which sets
    `label_modes`, `policy`, and the policy's date range, age threshold,
    kinship setting and field keys.
    """

    tag_names: dict[str, str] = _option(
        factory=dict, help="tag mode: label -> the name used in the tag (default: the label)."
    )
    tag_numbering: bool = _option(
        False,
        help="tag mode: number the distinct values of a label in a report: "
        "[NOMBRE_SUJETO_ASISTENCIA-1].",
    )
    tag_format: str = _option(
        "[{label}]",
        check=check_tag_format,
        help="tag mode: the tag's text, {label} the label (or its tag_names name), {n} the "
        "value's number with tag_numbering (empty without it); with tag_numbering and no {n}, "
        "-{n} follows {label}.",
    )
    mask_char: str = _option(
        "*", help="mask mode: the character that replaces each non-space character."
    )
    keep_age: bool = _option(
        True, help="surrogate mode: keep ages below age_threshold (else tag them)."
    )
    age_threshold: int = _option(
        90, help="surrogate mode: ages at or above this become age_aggregate."
    )
    age_aggregate: str = _option(
        "90 años o más", help="surrogate mode: what ages at or above age_threshold become."
    )
    keep_sex: bool = _option(True, help="surrogate mode: keep the sex (else tag it).")
    keep_kinship: bool = _option(
        True,
        help="every mode: keep kinship words of relatives (madre, hermano): they identify no "
        "one. False: tag, mask and redact replace them, surrogate draws another kinship word of "
        "the same gender.",
    )
    gazetteer: Path | None = _option(
        None,
        request=False,
        help="surrogate mode: MEDDOCAN gazetteer folder (None: MEDDOCAN_GAZETTEER, then the "
        "pipeline's own, then ../shared/meddocan/gazetteer, else Faker only).",
    )
    max_chars: int | None = _option(
        None,
        help="texts longer than this fail (None: 50,000,000); long texts go through the pipeline "
        "in pieces.",
    )
    label_modes: dict[str, str] = _option(
        factory=dict,
        settable=False,
        help="label -> operator (a mode or keep), from the policy; other labels get "
        "the run's mode.",
    )
    date_shift: tuple[int, int] | None = _option(
        None,
        help="surrogate mode: [min, max] days of the date offset (None: 32 to 730, further when "
        "a shifted date would reproduce another date of the report).",
    )
    policy: Any | None = _option(
        None,
        settable=False,
        help="the span rules of a policy (labels off, allow and deny lists), applied to the "
        "detected spans before the operator (meddocan_deid.deid.policy).",
    )
    country: str | None = _option(
        None,
        check=_check_country,
        help="surrogate mode: the reports' country (ES, MX, AR, CL, CO, PE, VE, UY, CU, DO, EC, "
        "CR, US): names, places, addresses and institutions of that country (None: detected "
        "per report, meddocan_deid.country).",
    )
    extra_patterns: Path | None = _option(
        None,
        request=False,
        help="a folder of *.jsonl field-key files (the form of configs/patterns/fields.jsonl) "
        "added to the pipeline's fields component for the run.",
    )

    def __post_init__(self):
        for f in fields(self):
            if f.metadata["check"] is not None:
                try:
                    f.metadata["check"](getattr(self, f.name))
                except ValueError as err:
                    raise ValueError(f"option {f.name}: {err}") from None


# the fields a caller may set by name, and those the service accepts
SETTABLE = tuple(f.name for f in fields(DeidOptions) if f.metadata["settable"])
REQUEST_SETTABLE = tuple(f.name for f in fields(DeidOptions) if f.metadata["request"])
_MODELS: dict[bool, Any] = {}


def option_help(request: bool = False) -> dict[str, str]:
    """name -> help of the options a caller may set (`request`: those the service accepts)."""
    names = REQUEST_SETTABLE if request else SETTABLE
    return {f.name: f.metadata["help"] for f in fields(DeidOptions) if f.name in names}


def option_model(request: bool = False):
    """The pydantic model of the settable options (`request`: only those the service accepts):
    the fields' types, defaults and help; unknown names are refused; made once."""
    if request not in _MODELS:
        hints = get_type_hints(DeidOptions)
        names = REQUEST_SETTABLE if request else SETTABLE
        specs: dict[str, Any] = {}
        for f in fields(DeidOptions):
            if f.name in names:
                # every option has a default or a default factory
                default = f.default_factory() if f.default_factory is not MISSING else f.default
                specs[f.name] = (hints[f.name], Field(default, description=f.metadata["help"]))

        def known_labels(value):
            unknown = sorted(set(value) - set(LABELS))
            if unknown:
                raise ValueError(f"unknown label {unknown[0]!r}")
            return value

        validators: dict[str, Callable[..., Any]] = (
            {"check_labels": field_validator("tag_names")(known_labels)}
            if "tag_names" in names
            else {}
        )
        for f in fields(DeidOptions):
            if f.name in names and f.metadata["check"] is not None:
                validators[f"check_{f.name}"] = field_validator(f.name)(f.metadata["check"])
        _MODELS[request] = create_model(
            "RequestOptions" if request else "Options",
            __config__=ConfigDict(extra="forbid"),
            __validators__=validators,
            **specs,
        )
    return _MODELS[request]


def _problem(err, request: bool) -> str:
    """The first problem of a pydantic ValidationError in one line, naming the option."""
    first = err.errors()[0]
    name = ".".join(str(part) for part in first["loc"]) or "options"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        message = (
            "unknown option (expected one of "
            f"{', '.join(REQUEST_SETTABLE if request else SETTABLE)})"
        )
    return f"option {name}: {message}"


def as_options(
    values: Union["DeidOptions", Mapping[str, Any], None],
    base: Optional["DeidOptions"] = None,
    request: bool = False,
) -> "DeidOptions":
    """`values` as DeidOptions: a DeidOptions as it is; a mapping of option names to values
    validated against the fields (types, unknown names) and set on `base` (default: the
    defaults). ValueError with one line naming the option."""
    if isinstance(values, DeidOptions):
        return values
    base = base if base is not None else DeidOptions()
    if not values:
        return base
    if not isinstance(values, Mapping):
        raise ValueError(f"options: expected DeidOptions or a mapping, got {type(values).__name__}")
    try:
        checked = option_model(request).model_validate(dict(values))
    except ValidationError as err:
        raise ValueError(_problem(err, request)) from None
    return replace(base, **{name: getattr(checked, name) for name in checked.model_fields_set})


def parse_option(item: str) -> tuple[str, Any]:
    """`NAME=VALUE` of the command line -> (name, value): the value as JSON when it reads as
    JSON and the option is not text (`true`, `80`, `[30, 60]`, `{"FECHAS": "FECHA"}`), else
    the string, for `as_options` to check. ValueError naming a malformed item."""
    name, sep, value = item.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ValueError(f"--option expects NAME=VALUE, got {item.split('=')[0]!r}")
    if name not in SETTABLE:
        raise ValueError(f"--option {name}: unknown option (expected one of {', '.join(SETTABLE)})")
    if get_type_hints(DeidOptions)[name] in (str, str | None, Path, Path | None):
        return name, value
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def parse_options(items: Iterable[str]) -> dict[str, Any]:
    """`--option` items -> {name: value}; ValueError for a malformed item or a name given twice."""
    out: dict[str, Any] = {}
    for item in items or ():
        name, value = parse_option(item)
        if name in out:
            raise ValueError(f"--option {name}: given twice")
        out[name] = value
    return out


def check_mode(mode: str) -> str:
    """`mode` when it is one of MODES, else ValueError: the one check every entry point uses."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (expected one of {', '.join(MODES)})")
    return mode


def label_operators(mode: str, options: DeidOptions | None) -> dict[str, str]:
    """label -> the operator it gets in a run in `mode` with `options` (a mode or `keep`):
    `options.label_modes` (the policy's operators), else `mode`.
    ValueError for an unknown operator."""
    modes = options.label_modes if options is not None else {}
    for label, label_mode in modes.items():
        if label_mode not in LABEL_MODES:
            raise ValueError(
                f"unknown operator {label_mode!r} for {label} (expected one of "
                f"{', '.join(LABEL_MODES)})"
            )
    return {**{label: mode for label in LABELS}, **modes}


def needs_key(mode: str, options: DeidOptions | None) -> bool:
    """Whether a run in `mode` with `options` may use the surrogate operator (and so a key),
    for a caller with no `Deidentifier` yet (e.g. the key is read before the model loads)."""
    return "surrogate" in label_operators(mode, options).values()


def read_tag_table(path: Path) -> dict[str, str]:
    """A TSV `LABEL<TAB>NAME` table for `tag` (blank lines and `#` comments ignored)."""
    path = Path(path)
    table: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: cannot read the tag table ({type(err).__name__})") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[1].strip():
            raise ValueError(f"{path}:{lineno}: expected 'LABEL<TAB>NAME'")
        label = parts[0].strip()
        if label not in LABELS:
            raise ValueError(f"{path}:{lineno}: unknown label {label!r}")
        table[label] = parts[1].strip()
    return table
