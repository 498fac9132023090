"""Policy files: what a site decides once for every run (`--policy policy.toml`, `.json`).

    age_threshold = 89                      # surrogate: ages at or above it are aggregated
    keep_kinship = true                     # surrogate: keep kinship words of relatives (default)
    # a folder of *.jsonl field keys (relative to this file), as --extra-patterns
    field_keys = "hospital_keys"

    [operators]                             # per label: tag, mask, redact, surrogate or keep
    SEXO_SUJETO_ASISTENCIA = "keep"         # keep: detected and annotated, left in clear
    NOMBRE_SUJETO_ASISTENCIA = "surrogate"  # other labels get the run's --mode

    [labels]                                # per label on/off; off: not PHI at all
    PROFESION = false

    [allow]                                 # never PHI: detected spans whose whole text matches
    strings = ["Parkinson"]
    regexes = ['(?i)s[ií]ndrome de \\w+']

    [[deny]]                                # always PHI: found anywhere, over overlapping spans
    label = "HOSPITAL"
    strings = ["Clínica Costa Azul"]        # case- and accent-insensitive, whole words
    regexes = ['HCA-\\d{4}']                # as written (Python `re`)

    [date_shift]                            # surrogate: the date offset, in days (sign at random)
    min_days = 30
    max_days = 365

    [release]                               # certify's and risk's targets (evidence/targets.py)
    max_reports_with_phi = 0.05
    [tables]
    k = 5
    # FHIR and HL7 v2 rule sets (docs/interchange.md): a JSON file (relative to this file)
    fhir_rules = "fhir_rules.json"
    # ... or inline, as the file's list would be
    hl7_rules = [{field = "PID-9", action = "redact"}]

`load_policy(path)` validates everything (a pydantic schema, `_PolicyFile`) and raises `PolicyError`
naming the file, the key and what is allowed. `Policy.apply(options)` gives the `DeidOptions` of a
run; `prepare_spans(text, spans, options, known_phi)` applies the span rules (and the known
identifiers of `meddocan_deid.deid.known_phi`) to the detected spans.
"""

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic_core import PydanticCustomError

from ..constants import LABELS
from ..country_data import check_country
from ..errors import InputError, PolicyError
from ..evidence.targets import ReleaseTargets, TableTargets
from ..formats import fhir_rules as fhir_rule_set
from ..formats import hl7v2_rules as hl7_rule_set
from ..lexicon import casefold_per_char
from .fingerprint import digest_of
from .known_phi import (
    Span,
    add_known,
    compile_terms,
    find_all,
    find_known,
    force_spans,
    id_term,
    is_id_label,
    literal_term,
)
from .options import LABEL_MODES, DeidOptions

TOP_KEYS = (
    "operators",
    "labels",
    "allow",
    "deny",
    "date_shift",
    "age_threshold",
    "privacy",
    "keep_kinship",
    "field_keys",
    "country",
    "release",
    "tables",
    "fhir_rules",
    "hl7_rules",
)
# the interchange formats' rule sets: the policy key -> its reader (a JSON file or inline)
RULE_SETS = {"fhir_rules": fhir_rule_set, "hl7_rules": hl7_rule_set}
# the pipeline's privacy operating point (the `privacy` component's level)
PRIVACY_LEVELS = ("balanced", "high")
MAX_SHIFT_DAYS = 36525  # a century
MAX_AGE = 150


@dataclass(frozen=True)
class DenyRule:
    label: str
    strings: tuple[str, ...] = ()
    regexes: tuple["re.Pattern", ...] = ()


@dataclass(frozen=True)
class Policy:
    source: str = "<policy>"
    operators: Mapping[str, str] = field(default_factory=dict)
    disabled: frozenset[str] = frozenset()
    allow_strings: frozenset[str] = frozenset()
    allow_regexes: tuple["re.Pattern", ...] = ()
    deny: tuple[DenyRule, ...] = ()
    date_shift: tuple[int, int] | None = None
    age_threshold: int | None = None
    privacy: str | None = None
    keep_kinship: bool | None = None
    field_keys: Path | None = (
        None  # folder of field-key files; the run fingerprint digests what they hold
    )
    country: str | None = None  # the reports' country (surrogates), instead of detecting it
    # the rules of FHIR's structured elements and of HL7 v2 fields (None: the shipped ones)
    fhir_rules: tuple[fhir_rule_set.Rule, ...] | None = None
    hl7_rules: tuple[hl7_rule_set.FieldRule, ...] | None = None
    # the release targets of certify and risk (evidence/targets.py); None: not set
    release: ReleaseTargets | None = None
    tables: TableTargets | None = None

    def digest(self) -> str:
        """SHA-256 of what the policy says (not where it was read from): the run fingerprint's
        policy digest, the same for the same rules in TOML or JSON."""
        return digest_of(
            {
                "operators": dict(self.operators),
                "disabled": self.disabled,
                "allow_strings": self.allow_strings,
                "allow_regexes": [r.pattern for r in self.allow_regexes],
                "deny": [
                    {
                        "label": d.label,
                        "strings": list(d.strings),
                        "regexes": [r.pattern for r in d.regexes],
                    }
                    for d in self.deny
                ],
                "date_shift": list(self.date_shift) if self.date_shift else None,
                "age_threshold": self.age_threshold,
                **({"privacy": self.privacy} if self.privacy is not None else {}),
                **({"keep_kinship": self.keep_kinship} if self.keep_kinship is not None else {}),
                **({"country": self.country} if self.country is not None else {}),
                **({"release": self.release.model_dump()} if self.release is not None else {}),
                **({"tables": self.tables.model_dump()} if self.tables is not None else {}),
                **{
                    key: [rule.as_data() for rule in rules]
                    for key, rules in (
                        ("fhir_rules", self.fhir_rules),
                        ("hl7_rules", self.hl7_rules),
                    )
                    if rules is not None
                },
            }
        )

    def apply(self, options: DeidOptions | None = None) -> DeidOptions:
        """`options` (default: the defaults) with this policy's operators, date range, age
        threshold, kinship setting and span rules."""
        options = options or DeidOptions()
        changes: dict[str, Any] = {
            "label_modes": {**options.label_modes, **self.operators},
            "policy": self,
        }
        if self.field_keys is not None and options.extra_patterns is None:
            changes["extra_patterns"] = self.field_keys
        if self.date_shift is not None:
            changes["date_shift"] = self.date_shift
        if self.age_threshold is not None:
            changes["age_threshold"] = self.age_threshold
        if self.keep_kinship is not None:
            changes["keep_kinship"] = self.keep_kinship
        if self.country is not None and options.country is None:
            changes["country"] = self.country
        return replace(options, **changes)

    def allowed(self, value: str) -> bool:
        stripped = value.strip()
        return stripped in self.allow_strings or any(
            p.fullmatch(stripped) for p in self.allow_regexes
        )

    def deny_spans(self, text: str) -> list[Span]:
        found: list[Span] = []
        folded = None
        for rule in self.deny:
            if rule.label in self.disabled:
                continue
            if rule.strings:
                folded = casefold_per_char(text) if folded is None else folded
                term = id_term if is_id_label(rule.label) else literal_term
                pattern = compile_terms(t for t in map(term, rule.strings) if t)
                if pattern is not None:
                    found.extend(find_all(folded, pattern, rule.label))
            for regex in rule.regexes:
                found.extend(
                    (rule.label, m.start(), m.end())
                    for m in regex.finditer(text)
                    if m.end() > m.start()
                )
        return found


def prepare_spans(
    text: str,
    spans: Iterable[Span],
    options: DeidOptions | None = None,
    known_phi: Mapping[str, Sequence[str]] | None = None,
) -> list[Span]:
    """The spans the operator gets: the detected `spans` without labels that are off and
    without allowed texts, plus the known identifiers and the deny list's matches (in that
    order of precedence), which win over overlapping detected spans."""
    policy: Policy | None = getattr(options, "policy", None) if options is not None else None
    spans = [(str(label), int(s), int(e)) for label, s, e in spans]
    if policy is None or options is None:
        keep = (
            {label for label, mode in options.label_modes.items() if mode == "keep"}
            if options
            else ()
        )
        return add_known(text, spans, known_phi, keep)
    spans = [
        (label, s, e)
        for label, s, e in spans
        if label not in policy.disabled and not policy.allowed(text[s:e])
    ]
    known = find_known(
        text, {label: v for label, v in (known_phi or {}).items() if label not in policy.disabled}
    )
    deny = policy.deny_spans(text)
    if not known and not deny:
        return sorted(spans, key=lambda x: (x[1], x[2]))
    # among forced spans the earlier wins: known identifiers, then the deny list, longest first
    known.sort(key=lambda x: (-(x[2] - x[1]), x[1]))
    deny.sort(key=lambda x: (-(x[2] - x[1]), x[1]))
    keep = {label for label, mode in options.label_modes.items() if mode == "keep"}
    return force_spans(text, spans, known + deny, keep)


# -- the file's schema (pydantic): each problem is reported as `<file>: <key>: <problem>` --


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("policy", "{problem}", {"problem": message})


def _labels():
    return LABELS


def _label(value):
    if value not in _labels():
        raise _problem(
            f"unknown label {str(value)[:60]!r} (allowed: the MEDDOCAN labels, e.g. "
            "NOMBRE_SUJETO_ASISTENCIA, FECHAS, HOSPITAL)"
        )
    return value


def _operator(value):
    if value not in LABEL_MODES:
        raise _problem(f"unknown operator {str(value)[:40]!r} (allowed: {', '.join(LABEL_MODES)})")
    return value


def _on_off(value):
    if not isinstance(value, bool):
        raise _problem("expected true (PHI) or false (off: not PHI)")
    return value


def _strings(value):
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _problem("expected a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _regex(pattern: str) -> "re.Pattern":
    try:
        regex = re.compile(pattern)
    except re.error as err:
        raise _problem(f"bad regex ({err.msg} at position {err.pos})") from None
    if regex.fullmatch(""):
        raise _problem("the regex matches the empty string")
    return regex


def _int_in(low: int, high: int):
    def check(value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise _problem(f"expected an integer from {low} to {high}")
        if not low <= value <= high:
            raise _problem(f"out of range ({value}; allowed: {low} to {high})")
        return value

    return BeforeValidator(check)


def _privacy(value):
    if value is not None and value not in PRIVACY_LEVELS:
        raise _problem(f"unknown level {str(value)[:40]!r} (allowed: {', '.join(PRIVACY_LEVELS)})")
    return value


def _kinship(value):
    if value is not None and not isinstance(value, bool):
        raise _problem("expected true (keep kinship words, the default) or false (swap them)")
    return value


def _country(value):
    if value is None:
        return value
    try:
        return check_country(str(value))
    except ValueError as err:
        raise _problem(str(err)) from None


def _field_keys(value):
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise _problem("expected the path of a folder of .jsonl field-key files")
    return value


def _rule_set(value):
    if value is None or (isinstance(value, str) and value.strip()) or isinstance(value, list):
        return value
    raise _problem("expected the path of a JSON rule file, or the rules as a list")


def _read_rule_set(key: str, value, source: str, base: Path | None):
    """The rules of the policy's `key` (a path relative to `base`, or a list), as a tuple;
    PolicyError naming the policy, the key and the rule."""
    if value is None:
        return None
    reader = RULE_SETS[key]
    try:
        if isinstance(value, str):
            path = Path(value)
            return tuple(
                reader.load_rules(path if path.is_absolute() or base is None else base / path)
            )
        return tuple(reader.parse_rules(value, f"{source}: {key}"))
    except InputError as err:
        message = str(err)
        raise PolicyError(
            message if isinstance(value, list) else f"{source}: {key}: {message}"
        ) from None


def _deny_list(value):
    if not isinstance(value, list):
        raise _problem("expected a list of tables ([[deny]] with label, strings, regexes)")
    return tuple(value)


Strings = Annotated[tuple[str, ...], BeforeValidator(_strings)]
Regexes = Annotated[tuple[Annotated[Any, AfterValidator(_regex)], ...], BeforeValidator(_strings)]
_STRICT = ConfigDict(extra="forbid", strict=True, arbitrary_types_allowed=True)


class _Allow(BaseModel):
    model_config = _STRICT
    strings: Strings = ()
    regexes: Regexes = ()


class _Deny(BaseModel):
    model_config = _STRICT
    label: Annotated[str, BeforeValidator(_label)]
    strings: Strings = ()
    regexes: Regexes = ()

    @model_validator(mode="after")
    def _some_terms(self):
        if not self.strings and not self.regexes:
            raise _problem("give strings or regexes")
        return self


class _DateShift(BaseModel):
    model_config = _STRICT
    min_days: Annotated[int, _int_in(1, MAX_SHIFT_DAYS)]
    max_days: Annotated[int, _int_in(1, MAX_SHIFT_DAYS)]

    @model_validator(mode="after")
    def _ordered(self):
        if self.min_days > self.max_days:
            raise _problem(
                f"bad range: min_days ({self.min_days}) is above max_days ({self.max_days})"
            )
        return self


def _label_table(name: str, value_type, check):
    """A table keyed by the 29 labels (no other key), each value given checked by `check`."""
    fields: dict[str, Any] = {
        label: (Annotated[value_type | None, BeforeValidator(check)], None) for label in _labels()
    }
    return create_model(name, __config__=_STRICT, **fields)


if TYPE_CHECKING:
    # built at run time with one field per label; a static checker sees a pydantic model
    _Operators = BaseModel
    _Labels = BaseModel
else:
    _Operators = _label_table("_Operators", str, _operator)
    _Labels = _label_table("_Labels", bool, _on_off)


class _PolicyFile(BaseModel):
    """The policy file as written; `to_policy` gives the Policy a run uses. The fields are
    in the order they are checked (TOP_KEYS)."""

    model_config = _STRICT
    operators: _Operators = Field(default_factory=_Operators)
    labels: _Labels = Field(default_factory=_Labels)
    allow: _Allow = Field(default_factory=_Allow)
    deny: Annotated[tuple[_Deny, ...], BeforeValidator(_deny_list)] = ()
    date_shift: _DateShift | None = None
    age_threshold: Annotated[int | None, _int_in(1, MAX_AGE)] = None
    privacy: Annotated[str | None, BeforeValidator(_privacy)] = None
    keep_kinship: Annotated[bool | None, BeforeValidator(_kinship)] = None
    field_keys: Annotated[str | None, BeforeValidator(_field_keys)] = None
    country: Annotated[str | None, BeforeValidator(_country)] = None
    release: ReleaseTargets | None = None
    tables: TableTargets | None = None
    fhir_rules: Annotated[Any, BeforeValidator(_rule_set)] = None
    hl7_rules: Annotated[Any, BeforeValidator(_rule_set)] = None

    def to_policy(self, source: str, order: Sequence[str] = (), base: Path | None = None) -> Policy:
        """The Policy; `order`: the labels of the file's operators table in the file's order;
        `base`: the folder rule files are relative to (None: the working folder)."""
        given = self.operators.model_dump(exclude_none=True)
        operators = {label: given[label] for label in [*order, *given] if label in given}
        disabled = frozenset(
            label for label, on in self.labels.model_dump(exclude_none=True).items() if not on
        )
        deny = tuple(DenyRule(d.label, tuple(d.strings), tuple(d.regexes)) for d in self.deny)
        date_shift = (
            (self.date_shift.min_days, self.date_shift.max_days)
            if self.date_shift is not None
            else None
        )
        return Policy(
            source,
            operators,
            disabled,
            frozenset(self.allow.strings),
            tuple(self.allow.regexes),
            deny,
            date_shift,
            self.age_threshold,
            self.privacy,
            self.keep_kinship,
            Path(self.field_keys) if self.field_keys is not None else None,
            self.country,
            _read_rule_set("fhir_rules", self.fhir_rules, source, base),
            _read_rule_set("hl7_rules", self.hl7_rules, source, base),
            release=self.release,
            tables=self.tables,
        )


def _allowed_keys(model) -> str:
    return ", ".join(model.model_fields)


# the table each location of the file is validated by, for "unknown key" and "missing"
def _model_at(loc: tuple) -> Any:
    model: type[BaseModel] = _PolicyFile
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None:
            return model
        inner = field.annotation
        for candidate in (
            inner,
            *getattr(inner, "__args__", ()),
        ):  # Optional[...] and Tuple[..., ...]
            if isinstance(candidate, type) and issubclass(candidate, BaseModel):
                model = candidate
                break
        else:
            return None
    return model


MISSING_HINTS = {
    "label": "missing (allowed: a MEDDOCAN label)",
    "min_days": "missing (both min_days and max_days are needed)",
    "max_days": "missing (both min_days and max_days are needed)",
}


def _key(loc: tuple) -> str:
    key = ""
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def _message(error: Mapping[str, Any]) -> tuple[str, str]:
    """(key, problem) of one pydantic error, in the policy's own words."""
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "policy":
        return _key(loc), error["ctx"]["problem"]
    if kind == "extra_forbidden":
        table = _model_at(loc[:-1])
        return _key(loc), f"unknown key (allowed: {_allowed_keys(table)})"
    if kind == "missing":
        return _key(loc), MISSING_HINTS.get(loc[-1], "missing")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        table = _model_at(loc)
        return _key(loc), f"expected a table with the keys {_allowed_keys(table)}"
    return _key(loc), error["msg"]  # not reached by the validators above; pydantic's own words


def parse_policy(data, source: str = "<policy>", base: Path | None = None) -> Policy:
    """A validated Policy from the parsed TOML/JSON `data` (a dict). PolicyError names the
    source, the key (`operators.FECHAS`, `deny[0].label`) and what is allowed. `base`: the
    folder the rule files it names are relative to (None: the working folder)."""
    if not isinstance(data, Mapping):
        raise PolicyError(f"{source}: expected a table with the keys {', '.join(TOP_KEYS)}")
    try:
        parsed = _PolicyFile.model_validate(dict(data))
    except ValidationError as err:
        key, problem = _message(err.errors(include_url=False)[0])
        raise PolicyError(
            f"{source}: {key}: {problem}" if key else f"{source}: {problem}"
        ) from None
    ops = data.get("operators")
    return parsed.to_policy(source, list(ops) if isinstance(ops, Mapping) else (), base)


def load_policy(path: str | Path) -> Policy:
    """Read and validate a policy file (.toml or .json)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise PolicyError(f"{path}: a policy file must be .toml or .json")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise PolicyError(
            f"{path}: cannot read the policy ({err.strerror or type(err).__name__})"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise PolicyError(f"{path}: not valid UTF-8 (byte {err.start})") from None
    try:
        data = tomllib.loads(text) if suffix == ".toml" else json.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise PolicyError(f"{path}: not valid TOML ({err})") from None
    except ValueError as err:
        raise PolicyError(f"{path}: not valid JSON (line {getattr(err, 'lineno', '?')})") from None
    if not isinstance(data, dict):
        raise PolicyError(f"{path}: expected a table (a JSON object) at the top")
    policy = parse_policy(data, str(path), path.parent)
    if (
        policy.field_keys is not None and not policy.field_keys.is_absolute()
    ):  # relative to the policy file
        policy = replace(policy, field_keys=Path(path).parent / policy.field_keys)
    return policy


PolicyLike = None | str | Path | Mapping[str, Any] | Policy


def as_policy(policy: PolicyLike) -> Policy | None:
    """A `Policy` from a `Policy`, the path of a .toml/.json policy file, or a dict of the
    same keys (what the service takes as JSON); None stays None."""
    if policy is None or isinstance(policy, Policy):
        return policy
    if isinstance(policy, (str, Path)):
        return load_policy(policy)
    if isinstance(policy, Mapping):
        return parse_policy(policy, "<policy dict>")
    raise TypeError(
        "policy must be a Policy, a dict of policy keys, or the path of a .toml/.json policy file"
    )
