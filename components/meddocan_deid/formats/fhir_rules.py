"""The rule set of FHIR's structured elements: a list of `{"path", "action", "labels",
"by_system"}` (data: `formats/data/fhir_rules.json`), read from a JSON file (`load_rules`) or
given inline, as a policy file's `fhir_rules` may be (`parse_rules`). formats/fhir.py applies
it. Messages name the source and the rule, never a value."""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

RULES_FILE = Path(__file__).parent / "data" / "fhir_rules.json"
ACTIONS = ("redact", "surrogate", "hash", "shift_date")


class FhirError(InputError):
    """FHIR input that cannot be read (the message names the file and the problem)."""


@dataclass(frozen=True)
class Rule:
    resource: str  # a resource type, or "*"
    element: str  # a top-level element, or "**" (every date)
    action: str
    labels: Mapping[str, str] = field(default_factory=dict)
    by_system: Mapping[str, str] = field(default_factory=dict)

    def as_data(self) -> dict:
        """The rule as written in a rule set (what the policy digest covers)."""
        path = "**" if self.element == "**" else f"{self.resource}.{self.element}"
        return {
            "path": path,
            "action": self.action,
            "labels": dict(self.labels),
            "by_system": dict(self.by_system),
        }


def parse_rules(data, source: str) -> list[Rule]:
    """The rules of `data` (a list of rules, or an object with a `fhir_rules` list) read from
    `source`. Raises FhirError naming the source and the bad rule."""
    if isinstance(data, dict):
        data = data.get("fhir_rules")
    if not isinstance(data, list):
        raise FhirError(f"{source}: the FHIR rules are not a list")
    rules = []
    for n, raw in enumerate(data, start=1):
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
            raise FhirError(f"{source}: rule {n} has no 'path' string")
        action = raw.get("action")
        if action not in ACTIONS:
            raise FhirError(f"{source}: rule {n}: unknown action (allowed: {', '.join(ACTIONS)})")
        for name in ("labels", "by_system"):
            value = raw.get(name, {})
            if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
                raise FhirError(f"{source}: rule {n}: '{name}' is not an object of labels")
        if raw["path"] == "**":
            if action != "shift_date":
                raise FhirError(f"{source}: rule {n}: path '**' is only for shift_date")
            resource, element = "*", "**"
        else:
            resource, _, element = raw["path"].partition(".")
            if not resource or not element or "." in element:
                raise FhirError(f"{source}: rule {n}: path is not 'Type.element' or '*.element'")
        rules.append(
            Rule(resource, element, action, raw.get("labels", {}), raw.get("by_system", {}))
        )
    return rules


def load_rules(path: Path | str | None = None) -> list[Rule]:
    """The rule set of the JSON file `path`, the shipped one when None (FhirError naming the
    file and the bad rule)."""
    source = Path(path) if path is not None else RULES_FILE
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise FhirError(f"{source}: cannot read the FHIR rules ({type(err).__name__})") from None
    return parse_rules(data, str(source))
