"""The rule set of HL7 v2 fields: a list of `{"field": "PID-5", "action", "components":
{"1": label}}` (data: `formats/data/hl7v2_rules.json`), read from a JSON file (`load_rules`) or
given inline, as a policy file's `hl7_rules` may be (`parse_rules`). formats/hl7v2.py applies
it. Messages name the source and the rule, never a value."""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError

RULES_FILE = Path(__file__).parent / "data" / "hl7v2_rules.json"
ACTIONS = ("redact", "surrogate", "hash", "shift_date")
FIELD_NAME = re.compile(r"^([A-Z][A-Z0-9]{2})-(\d{1,3})$")


class Hl7Error(InputError):
    """HL7 v2 input that cannot be read (the message names the file and the problem)."""


@dataclass(frozen=True)
class FieldRule:
    segment: str
    number: int
    action: str
    components: Mapping[int, str] = field(default_factory=dict)

    def as_data(self) -> dict:
        """The rule as written in a rule set (what the policy digest covers)."""
        return {
            "field": f"{self.segment}-{self.number}",
            "action": self.action,
            "components": {str(k): v for k, v in self.components.items()},
        }


def parse_rules(data, source: str) -> list[FieldRule]:
    """The rules of `data` (a list) read from `source`; Hl7Error names the source and the rule."""
    if not isinstance(data, list):
        raise Hl7Error(f"{source}: the HL7 rules are not a list")
    rules = []
    for n, raw in enumerate(data, start=1):
        m = FIELD_NAME.match(str(raw.get("field", ""))) if isinstance(raw, dict) else None
        if m is None:
            raise Hl7Error(f"{source}: rule {n}: 'field' is not like 'PID-5'")
        if raw.get("action") not in ACTIONS:
            raise Hl7Error(f"{source}: rule {n}: unknown action (allowed: {', '.join(ACTIONS)})")
        try:
            components = {int(k): str(v) for k, v in raw.get("components", {}).items()}
        except (AttributeError, ValueError):
            raise Hl7Error(f"{source}: rule {n}: 'components' is not number -> label") from None
        rules.append(FieldRule(m.group(1), int(m.group(2)), raw["action"], components))
    return rules


def load_rules(path: Path | str | None = None) -> list[FieldRule]:
    """The rule set of the JSON file `path`, the shipped one when None; Hl7Error names the rule."""
    source = Path(path) if path is not None else RULES_FILE
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise Hl7Error(f"{source}: cannot read the HL7 rules ({type(err).__name__})") from None
    return parse_rules(data, str(source))
