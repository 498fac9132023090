"""HL7 v2 messages (`.hl7`: segments separated by `\\r`, one or many messages a file, or
MLLP-framed): a source and sink that writes the messages back, de-identified.

Parsed with the `hl7` package (the `hl7` extra): small and pure Python, it keeps each message's
own encoding characters and gives the message back byte for byte from its containers, with
escape and unescape by those characters; hl7apy validates against a version's segment
structures, which site-specific segments and loose senders fail. Each field is rewritten in
place, by its repetitions and components, so segment and field structure, encoding characters
and the escapes of untouched values are kept.

Fields follow a rule set (data: `formats/data/hl7v2_rules.json`, or a JSON file of that shape):
`{"field": "PID-5", "action": "surrogate" | "hash" | "redact" | "shift_date", "components":
{"1": MEDDOCAN label, ...}}`: surrogate puts each named component through the Deidentifier's
operator for its label, keyed by the patient (PID-3); hash puts a keyed digest; redact empties
the field; shift_date moves a TS/DTM by the patient's keyed offset (the one of the patient's
narrative dates). OBX-5 text values (TX, ST, FT) and NTE-3 comments go through the Deidentifier
with the message's PID and NK1 values (and the staff's names) as known PHI.
"""

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..deid.deidentifier import Deidentifier
from ..errors import DeidKeyError, InputError
from ..pipeline.loading import load_model
from .base import Format
from .fhir import FhirDeidentifier, shift_date

RULES_FILE = Path(__file__).parent / "data" / "hl7v2_rules.json"
ACTIONS = ("redact", "surrogate", "hash", "shift_date")
MLLP_START, MLLP_END = "\x0b", "\x1c"
FIELD_NAME = re.compile(r"^([A-Z][A-Z0-9]{2})-(\d{1,3})$")
TS = re.compile(r"^(\d{4})(\d{2})?(\d{2})?(\d*(?:\.\d+)?)([+-]\d{4})?$")
TEXT_TYPES = ("TX", "ST", "FT")
KNOWN_SEGMENTS = ("PID", "NK1")  # their values: known PHI for the message's free text


class Hl7Error(InputError):
    """HL7 v2 input that cannot be read (the message names the file and the problem)."""


@dataclass(frozen=True)
class FieldRule:
    segment: str
    number: int
    action: str
    components: Mapping[int, str] = field(default_factory=dict)


def load_rules(path: Path | str | None = None) -> list[FieldRule]:
    """The rule set of `path` (JSON list), the shipped one when None; Hl7Error names the rule."""
    source = Path(path) if path is not None else RULES_FILE
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise Hl7Error(f"{source}: cannot read the HL7 rules ({type(err).__name__})") from None
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


# -- reading and writing files ----------------------------------------------------------------
def split_messages(text: str) -> tuple[list[str], bool]:
    """(the messages of a file, each with `\\r` between segments; whether it was MLLP-framed)."""
    framed = text.lstrip("\r\n ").startswith(MLLP_START)
    if framed:
        blocks = [b.strip("\r\n") for b in text.replace(MLLP_START, "").split(MLLP_END)]
    else:
        blocks = [text]
    messages = []
    for block in blocks:
        segments = [s for s in re.split(r"\r\n|\r|\n", block) if s.strip()]
        for seg in segments:
            if seg.startswith("MSH"):
                messages.append([seg])
            elif messages:
                messages[-1].append(seg)
            else:
                raise Hl7Error("a segment comes before the first MSH")
    return ["\r".join(m) for m in messages], framed


def join_messages(messages: list[str], framed: bool) -> str:
    if framed:
        return "".join(f"{MLLP_START}{m}\r{MLLP_END}\r" for m in messages)
    return "".join(f"{m}\r" for m in messages)


def parse(text: str):
    import hl7  # the hl7 extra

    try:
        return hl7.parse(text)
    except Exception as err:  # the package raises several kinds for a malformed message
        raise Hl7Error(f"not a valid HL7 v2 message ({type(err).__name__})") from None


# -- de-identifying ---------------------------------------------------------------------------
class Hl7Deidentifier(FhirDeidentifier):
    """De-identify HL7 v2 messages with a `Deidentifier` and a key (as FhirDeidentifier: the
    same keyed digests and date offsets)."""

    def __init__(self, deidentifier, *, key=None, rules: list[FieldRule] | None = None):
        super().__init__(deidentifier, key=key, rules=[])
        self.field_rules = rules if rules is not None else load_rules()

    def message(self, text: str) -> str:
        """One message (segments separated by `\\r`) de-identified."""
        msg = parse(text)
        pid = self._patient(msg)
        known: dict[str, list[str]] = {}
        for seg in msg:
            name = str(seg[0])
            for rule in self._field_rules(name):
                if rule.number < len(seg) and rule.action in ("surrogate", "hash"):
                    for label, value in self._values(msg, str(seg[rule.number]), rule):
                        if name in KNOWN_SEGMENTS or label.startswith("NOMBRE_PERSONAL"):
                            known.setdefault(label, []).append(value)
        for seg in msg:
            name = str(seg[0])
            for rule in self._field_rules(name):
                if rule.number < len(seg) and str(seg[rule.number]):
                    seg[rule.number] = self._field(msg, str(seg[rule.number]), rule, pid, known)
            if name == "OBX" and len(seg) > 5 and str(seg[2]) in TEXT_TYPES:
                seg[5] = self._free_field(msg, str(seg[5]), pid, known)
            if name == "NTE" and len(seg) > 3:
                seg[3] = self._free_field(msg, str(seg[3]), pid, known)
        return str(msg).rstrip("\r")

    def _patient(self, msg) -> str:
        for seg in msg:
            if str(seg[0]) == "PID" and len(seg) > 3 and str(seg[3]):
                return str(seg[3]).split(msg.separators[2])[0].split(msg.separators[3])[0]
        return "-"

    def _field_rules(self, segment: str) -> list[FieldRule]:
        return [r for r in self.field_rules if r.segment == segment]

    @staticmethod
    def _seps(msg) -> tuple[str, str]:
        """(repetition, component) separators of the message."""
        return msg.separators[2], msg.separators[3]

    def _values(self, msg, raw: str, rule: FieldRule):
        rep_sep, comp_sep = self._seps(msg)
        for rep in raw.split(rep_sep):
            comps = rep.split(comp_sep)
            parts = []
            for number, label in rule.components.items():
                if number <= len(comps) and comps[number - 1]:
                    value = msg.unescape(comps[number - 1])
                    parts.append((number, label, value))
                    if len(value.strip()) >= 2:
                        yield label, value
            names = [v for n, lab, v in parts if lab.startswith(("NOMBRE", "FAMILIARES"))]
            if len(names) > 1:  # the whole name as written in text: given names, then surnames
                label = next(lab for _n, lab, _v in parts if lab.startswith(("NOMBRE", "FAM")))
                yield label, " ".join(names[1:] + names[:1])

    def _field(self, msg, raw: str, rule: FieldRule, pid: str, known) -> str:
        if rule.action == "redact":
            return ""
        rep_sep, comp_sep = self._seps(msg)
        reps = []
        for rep in raw.split(rep_sep):
            comps = rep.split(comp_sep)
            if rule.action == "shift_date":
                comps[0] = shift_ts(comps[0], self.offset(pid))
            else:
                for number, label in rule.components.items():
                    if number <= len(comps) and comps[number - 1]:
                        value = msg.unescape(comps[number - 1])
                        if rule.action == "hash":
                            new = self._digest("value", value)
                        else:
                            new = self.surrogate(value, label, pid, known)
                        comps[number - 1] = msg.escape(new)
            reps.append(comp_sep.join(comps))
        return rep_sep.join(reps)

    def _free_field(self, msg, raw: str, pid: str, known) -> str:
        rep_sep = msg.separators[2]
        out = []
        for rep in raw.split(rep_sep):
            text = msg.unescape(rep)
            if text.strip():
                rep = msg.escape(self.free_text(text, pid, known))
            out.append(rep)
        return rep_sep.join(out)


def shift_ts(value: str, days: int) -> str:
    """An HL7 TS/DTM (YYYY[MM[DD[HHMM[SS[.S]]]]][+ZZZZ]) moved by `days`, its precision kept."""
    m = TS.match(value)
    if m is None:
        return value
    year, month, day, time, zone = m.groups()
    iso = year + (f"-{month}" if month else "") + (f"-{day}" if day else "")
    shifted = shift_date(iso, days).replace("-", "")
    return f"{shifted}{time or ''}{zone or ''}"


def deidentify_text(text: str, hl7_deid: Hl7Deidentifier) -> str:
    """The messages of a file's text de-identified, in the file's framing."""
    messages, framed = split_messages(text)
    return join_messages([hl7_deid.message(m) for m in messages], framed)


def deidentify_paths(inputs: list[Path], output: Path, hl7_deid: Hl7Deidentifier) -> list:
    """De-identify `.hl7` files (or the `.hl7` files of folders) into `output`; (input, output)."""
    files: list[tuple[Path, Path]] = []
    for src in inputs:
        if src.is_dir():
            files += [(p, p.relative_to(src)) for p in sorted(src.rglob("*")) if is_hl7(p)]
        else:
            files.append((src, Path(src.name)))
    written = []
    for src, rel in files:
        try:
            text = src.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise Hl7Error(f"{src}: cannot read ({type(err).__name__})") from None
        try:
            out = deidentify_text(text, hl7_deid)
        except Hl7Error as err:
            raise Hl7Error(f"{src}: {err}") from None
        dest = output / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(out.encode("utf-8"))
        written.append((src, dest))
    return written


def is_hl7(path: Path) -> bool:
    """Whether a file holds HL7 v2: a `.hl7` suffix, or its text starts with MSH (MLLP or not)."""
    if path.suffix.lower() == ".hl7":
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return False
    return head.lstrip(b"\x0b").startswith(b"MSH")


def run(config, rules_path: Path | None = None, nlp=None) -> list[tuple[Path, Path]]:
    """`meddocan-deid deidentify --input-format hl7v2`: INPUT's messages into OUTPUT."""

    problem = FORMAT.missing()
    if problem is not None:
        raise Hl7Error(problem)
    inp, output = Path(config.input), Path(config.output)
    if not inp.exists():
        raise Hl7Error(f"{inp}: input not found")
    if config.key is None:
        raise DeidKeyError(
            "HL7 v2 de-identification needs a key (hashes, date offsets): --key-file, "
            "MEDDOCAN_DEID_KEY or --random-key"
        )
    rules = load_rules(rules_path)
    if nlp is None:
        nlp = load_model(config.model, config.privacy)
    deid = Deidentifier(nlp, config.mode, key=config.key, options=config.options)
    return deidentify_paths([inp], output, Hl7Deidentifier(deid, key=config.key, rules=rules))


# its own kind, as FHIR: read and written back as messages by `run`
FORMAT = Format(name="hl7v2", kind="messages", suffixes=(), modules=("hl7",), extra="hl7")
