"""Policy files: what a site decides once for every run (`--policy policy.toml`, `.json`).

    age_threshold = 89                      # surrogate: ages at or above it are aggregated
    keep_kinship = true                     # surrogate: keep kinship words of relatives (default)
    field_keys = "hospital_keys"            # folder of *.jsonl field keys (relative to this file), as --extra-patterns

    [operators]                             # per label: tag, mask, redact, surrogate or keep
    SEXO_SUJETO_ASISTENCIA = "keep"         # keep: detected and annotated, left in clear
    NOMBRE_SUJETO_ASISTENCIA = "surrogate"  # other labels get the run's --mode

    [labels]                                # per label on/off; off: not PHI at all
    PROFESION = false

    [allow]                                 # never PHI: detected spans whose whole text matches are dropped
    strings = ["Parkinson"]
    regexes = ['(?i)s[ií]ndrome de \\w+']

    [[deny]]                                # always PHI: found anywhere, winning over overlapping spans
    label = "HOSPITAL"
    strings = ["Clínica Costa Azul"]        # case- and accent-insensitive, whole words
    regexes = ['HCA-\\d{4}']                # as written (Python `re`)

    [date_shift]                            # surrogate: the date offset, in days (sign at random)
    min_days = 30
    max_days = 365

`load_policy(path)` validates everything and raises `PolicyError` naming the file, the key
and what is allowed. `Policy.apply(options)` gives the `DeidOptions` of a run;
`prepare_spans(text, spans, options, known_phi)` applies the span rules (and the known
identifiers of `meddocan_deid.deid.known_phi`) to the detected spans.
"""
import json
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .known_phi import (Span, add_known, compile_terms, find_all, find_known, fold1, force_spans, id_term, is_id_label,
                        literal_term)
from .options import LABEL_MODES, DeidOptions

TOP_KEYS = ("operators", "labels", "allow", "deny", "date_shift", "age_threshold", "privacy", "keep_kinship",
            "field_keys")
# the pipeline's privacy operating point (the `privacy` component's level)
PRIVACY_LEVELS = ("balanced", "high")
ALLOW_KEYS = ("strings", "regexes")
DENY_KEYS = ("label", "strings", "regexes")
SHIFT_KEYS = ("min_days", "max_days")
MAX_SHIFT_DAYS = 36525  # a century
MAX_AGE = 150


class PolicyError(ValueError):
    """A policy that cannot be used: the message names the file, the key and what is allowed."""


@dataclass(frozen=True)
class DenyRule:
    label: str
    strings: Tuple[str, ...] = ()
    regexes: Tuple["re.Pattern", ...] = ()


@dataclass(frozen=True)
class Policy:
    source: str = "<policy>"
    operators: Mapping[str, str] = field(default_factory=dict)
    disabled: FrozenSet[str] = frozenset()
    allow_strings: FrozenSet[str] = frozenset()
    allow_regexes: Tuple["re.Pattern", ...] = ()
    deny: Tuple[DenyRule, ...] = ()
    date_shift: Optional[Tuple[int, int]] = None
    age_threshold: Optional[int] = None
    privacy: Optional[str] = None
    keep_kinship: Optional[bool] = None
    field_keys: Optional[Path] = None  # folder of field-key files; the run fingerprint digests what they hold

    def digest(self) -> str:
        """SHA-256 of what the policy says (not where it was read from): the run fingerprint's
        policy digest, the same for the same rules in TOML or JSON."""
        from .fingerprint import digest_of

        return digest_of({
            "operators": dict(self.operators), "disabled": self.disabled, "allow_strings": self.allow_strings,
            "allow_regexes": [r.pattern for r in self.allow_regexes],
            "deny": [{"label": d.label, "strings": list(d.strings), "regexes": [r.pattern for r in d.regexes]}
                     for d in self.deny],
            "date_shift": list(self.date_shift) if self.date_shift else None, "age_threshold": self.age_threshold,
            **({"privacy": self.privacy} if self.privacy is not None else {}),
            **({"keep_kinship": self.keep_kinship} if self.keep_kinship is not None else {}),
        })

    def apply(self, options: Optional[DeidOptions] = None) -> DeidOptions:
        """`options` (default: the defaults) with this policy's operators, date range, age
        threshold, kinship setting and span rules."""
        options = options or DeidOptions()
        changes = {"label_modes": {**options.label_modes, **self.operators}, "policy": self}
        if self.field_keys is not None and options.extra_patterns is None:
            changes["extra_patterns"] = self.field_keys
        if self.date_shift is not None:
            changes["date_shift"] = self.date_shift
        if self.age_threshold is not None:
            changes["age_threshold"] = self.age_threshold
        if self.keep_kinship is not None:
            changes["keep_kinship"] = self.keep_kinship
        return replace(options, **changes)

    def allowed(self, value: str) -> bool:
        stripped = value.strip()
        return stripped in self.allow_strings or any(p.fullmatch(stripped) for p in self.allow_regexes)

    def deny_spans(self, text: str) -> List[Span]:
        found: List[Span] = []
        folded = None
        for rule in self.deny:
            if rule.label in self.disabled:
                continue
            if rule.strings:
                folded = fold1(text) if folded is None else folded
                term = id_term if is_id_label(rule.label) else literal_term
                pattern = compile_terms(t for t in map(term, rule.strings) if t)
                if pattern is not None:
                    found.extend(find_all(folded, pattern, rule.label))
            for regex in rule.regexes:
                found.extend((rule.label, m.start(), m.end()) for m in regex.finditer(text) if m.end() > m.start())
        return found


def prepare_spans(text: str, spans: Iterable[Span], options: Optional[DeidOptions] = None,
                  known_phi: Optional[Mapping[str, Sequence[str]]] = None) -> List[Span]:
    """The spans the operator gets: the detected `spans` without labels that are off and
    without allowed texts, plus the known identifiers and the deny list's matches (in that
    order of precedence), which win over overlapping detected spans."""
    policy: Optional[Policy] = getattr(options, "policy", None) if options is not None else None
    spans = [(str(l), int(s), int(e)) for l, s, e in spans]
    if policy is None:
        keep = {label for label, mode in options.label_modes.items() if mode == "keep"} if options else ()
        return add_known(text, spans, known_phi, keep)
    spans = [(l, s, e) for l, s, e in spans if l not in policy.disabled and not policy.allowed(text[s:e])]
    known = find_known(text, {l: v for l, v in (known_phi or {}).items() if l not in policy.disabled})
    deny = policy.deny_spans(text)
    if not known and not deny:
        return sorted(spans, key=lambda x: (x[1], x[2]))
    # among forced spans the earlier wins: known identifiers, then the deny list, longest first
    known.sort(key=lambda x: (-(x[2] - x[1]), x[1]))
    deny.sort(key=lambda x: (-(x[2] - x[1]), x[1]))
    keep = {label for label, mode in options.label_modes.items() if mode == "keep"}
    return force_spans(text, spans, known + deny, keep)


def _err(source: str, key: str, problem: str) -> PolicyError:
    return PolicyError(f"{source}: {key}: {problem}")


def _labels():
    from .. import LABELS

    return LABELS


def _check_label(source: str, key: str, label) -> str:
    if label not in _labels():
        raise _err(source, key, f"unknown label {str(label)[:60]!r} (allowed: the MEDDOCAN labels, e.g. "
                                "NOMBRE_SUJETO_ASISTENCIA, FECHAS, HOSPITAL)")
    return label


def _check_keys(source: str, key: str, table, allowed: Sequence[str]) -> Mapping:
    if not isinstance(table, Mapping):
        raise _err(source, key, f"expected a table with the keys {', '.join(allowed)}")
    for k in table:
        if k not in allowed:
            raise _err(source, f"{key}.{k}" if key else str(k), f"unknown key (allowed: {', '.join(allowed)})")
    return table


def _strings(source: str, key: str, value) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _err(source, key, "expected a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _regexes(source: str, key: str, value) -> Tuple["re.Pattern", ...]:
    out = []
    for i, pattern in enumerate(_strings(source, key, value)):
        try:
            regex = re.compile(pattern)
        except re.error as err:
            raise _err(source, f"{key}[{i}]", f"bad regex ({err.msg} at position {err.pos})") from None
        if regex.fullmatch(""):
            raise _err(source, f"{key}[{i}]", "the regex matches the empty string")
        out.append(regex)
    return tuple(out)


def _int(source: str, key: str, value, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _err(source, key, f"expected an integer from {low} to {high}")
    if not low <= value <= high:
        raise _err(source, key, f"out of range ({value}; allowed: {low} to {high})")
    return value


def parse_policy(data, source: str = "<policy>") -> Policy:
    """A validated Policy from the parsed TOML/JSON `data` (a dict)."""
    data = _check_keys(source, "", data, TOP_KEYS)
    operators: Dict[str, str] = {}
    for label, op in _check_keys(source, "operators", data.get("operators", {}), _labels()).items():
        if op not in LABEL_MODES:
            raise _err(source, f"operators.{label}", f"unknown operator {str(op)[:40]!r} "
                                                     f"(allowed: {', '.join(LABEL_MODES)})")
        operators[label] = op
    disabled = set()
    for label, on in _check_keys(source, "labels", data.get("labels", {}), _labels()).items():
        if not isinstance(on, bool):
            raise _err(source, f"labels.{label}", "expected true (PHI) or false (off: not PHI)")
        if not on:
            disabled.add(label)
    allow = _check_keys(source, "allow", data.get("allow", {}), ALLOW_KEYS)
    allow_strings = frozenset(_strings(source, "allow.strings", allow.get("strings", [])))
    allow_regexes = _regexes(source, "allow.regexes", allow.get("regexes", []))
    deny_data = data.get("deny", [])
    if not isinstance(deny_data, list):
        raise _err(source, "deny", "expected a list of tables ([[deny]] with label, strings, regexes)")
    deny = []
    for i, rule in enumerate(deny_data):
        key = f"deny[{i}]"
        rule = _check_keys(source, key, rule, DENY_KEYS)
        if "label" not in rule:
            raise _err(source, f"{key}.label", "missing (allowed: a MEDDOCAN label)")
        label = _check_label(source, f"{key}.label", rule["label"])
        strings = _strings(source, f"{key}.strings", rule.get("strings", []))
        regexes = _regexes(source, f"{key}.regexes", rule.get("regexes", []))
        if not strings and not regexes:
            raise _err(source, key, "give strings or regexes")
        deny.append(DenyRule(label, strings, regexes))
    date_shift = None
    if "date_shift" in data:
        shift = _check_keys(source, "date_shift", data["date_shift"], SHIFT_KEYS)
        for k in SHIFT_KEYS:
            if k not in shift:
                raise _err(source, f"date_shift.{k}", "missing (both min_days and max_days are needed)")
        low = _int(source, "date_shift.min_days", shift["min_days"], 1, MAX_SHIFT_DAYS)
        high = _int(source, "date_shift.max_days", shift["max_days"], 1, MAX_SHIFT_DAYS)
        if low > high:
            raise _err(source, "date_shift", f"bad range: min_days ({low}) is above max_days ({high})")
        date_shift = (low, high)
    age_threshold = None
    if "age_threshold" in data:
        age_threshold = _int(source, "age_threshold", data["age_threshold"], 1, MAX_AGE)
    privacy = data.get("privacy")
    if privacy is not None and privacy not in PRIVACY_LEVELS:
        raise _err(source, "privacy", f"unknown level {str(privacy)[:40]!r} (allowed: {', '.join(PRIVACY_LEVELS)})")
    keep_kinship = data.get("keep_kinship")
    if keep_kinship is not None and not isinstance(keep_kinship, bool):
        raise _err(source, "keep_kinship", "expected true (keep kinship words, the default) or false (swap them)")
    field_keys = data.get("field_keys")
    if field_keys is not None:
        if not isinstance(field_keys, str) or not field_keys.strip():
            raise _err(source, "field_keys", "expected the path of a folder of .jsonl field-key files")
        field_keys = Path(field_keys)  # load_policy: relative to the policy file's folder
    return Policy(source, operators, frozenset(disabled), allow_strings, allow_regexes, tuple(deny), date_shift,
                  age_threshold, privacy, keep_kinship, field_keys)


def load_policy(path: Union[str, Path]) -> Policy:
    """Read and validate a policy file (.toml or .json)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise PolicyError(f"{path}: a policy file must be .toml or .json")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise PolicyError(f"{path}: cannot read the policy ({err.strerror or type(err).__name__})") from None
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
    policy = parse_policy(data, str(path))
    if policy.field_keys is not None and not policy.field_keys.is_absolute():
        policy = replace(policy, field_keys=path.parent / policy.field_keys)
    return policy


def as_policy(policy: Union[None, str, Path, Policy]) -> Optional[Policy]:
    if policy is None or isinstance(policy, Policy):
        return policy
    if isinstance(policy, (str, Path)):
        return load_policy(policy)
    raise TypeError("policy must be a Policy or the path of a policy file")
