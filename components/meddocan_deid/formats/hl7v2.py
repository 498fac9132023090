"""HL7 v2 messages (`.hl7`: segments separated by `\\r`, one or many messages a file, or
MLLP-framed): a source and sink that writes the messages back, de-identified. In a run
(engine/interchange.py) each file is an item (`rewrite`: a broken message fails its file, by
number); the service and Spark use the same rewriter.

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

import re
from collections import Counter
from pathlib import Path

from .base import Format, Interchange
from .fhir import DATE_LABEL, FhirDeidentifier, shift_date
from .found import Found
from .hl7v2_rules import (
    ACTIONS,
    FIELD_NAME,
    RULES_FILE,
    FieldRule,
    Hl7Error,
    load_rules,
    parse_rules,
)

__all__ = [
    "ACTIONS",
    "FIELD_NAME",
    "RULES_FILE",
    "FieldRule",
    "Hl7Deidentifier",
    "Hl7Error",
    "load_rules",
    "parse_rules",
]

MLLP_START, MLLP_END = "\x0b", "\x1c"
TS = re.compile(r"^(\d{4})(\d{2})?(\d{2})?(\d*(?:\.\d+)?)([+-]\d{4})?$")
TEXT_TYPES = ("TX", "ST", "FT")
KNOWN_SEGMENTS = ("PID", "NK1")  # their values: known PHI for the message's free text


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

    # a run's files: a message's known PHI is its own, so nothing is kept across files
    def collect_text(self, text: str, where: str) -> None:
        """Nothing to collect: each message names its patient (Hl7Error naming `where` for a
        file that does not split into messages)."""
        try:
            split_messages(text)
        except Hl7Error as err:
            raise Hl7Error(f"{where}: {err}") from None

    def rewrite(self, text: str, where: str) -> tuple[str, dict[str, int]]:
        """A file's messages de-identified, in its framing, and the values replaced per label
        (Hl7Error naming `where` and the message)."""
        self.per_label = Counter()
        self.found = [] if self.recording else None
        try:
            messages, framed = split_messages(text)
        except Hl7Error as err:
            raise Hl7Error(f"{where}: {err}") from None
        if not messages:
            raise Hl7Error(f"{where}: no HL7 v2 message (no MSH segment)")
        out = []
        for n, message in enumerate(messages, start=1):
            try:
                out.append(self.message(message, f"message {n}: " if len(messages) > 1 else ""))
            except Hl7Error as err:
                raise Hl7Error(f"{where}: message {n}: {err}") from None
        return join_messages(out, framed), dict(self.per_label)

    def message(self, text: str, prefix: str = "") -> str:
        """One message (segments separated by `\\r`) de-identified; what is found in it is
        named `<prefix><segment>[<its number among those segments>].<field>` (`OBX[3].5`)."""
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
        seen: Counter = Counter()
        for seg in msg:
            name = str(seg[0])
            seen[name] += 1
            at = f"{prefix}{name}[{seen[name]}]"
            for rule in self._field_rules(name):
                if rule.number < len(seg) and str(seg[rule.number]):
                    seg[rule.number] = self._field(
                        msg, str(seg[rule.number]), rule, pid, known, f"{at}.{rule.number}"
                    )
            if name == "OBX" and len(seg) > 5 and str(seg[2]) in TEXT_TYPES:
                seg[5] = self._free_field(msg, str(seg[5]), pid, known, f"{at}.5")
            if name == "NTE" and len(seg) > 3:
                seg[3] = self._free_field(msg, str(seg[3]), pid, known, f"{at}.3")
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

    def _field(self, msg, raw: str, rule: FieldRule, pid: str, known, path: str) -> str:
        if rule.action == "redact":
            self.note(Found(path, "", "", removed=True))
            return ""
        rep_sep, comp_sep = self._seps(msg)
        reps = []
        repeated = rep_sep in raw
        for n, rep in enumerate(raw.split(rep_sep), start=1):
            comps = rep.split(comp_sep)
            where = f"{path}({n})" if repeated else path  # the n-th repetition
            if rule.action == "shift_date":
                new = shift_ts(comps[0], self.offset(pid))
                if new != comps[0]:
                    self.note(Found.whole(where, comps[0], new, DATE_LABEL))
                comps[0] = new
            else:
                for number, label in rule.components.items():
                    if number <= len(comps) and comps[number - 1]:
                        value = msg.unescape(comps[number - 1])
                        if rule.action == "hash":
                            new = self.hashed(value, label, f"{where}.{number}")
                        else:
                            new = self.surrogate(value, label, pid, known, path=f"{where}.{number}")
                        comps[number - 1] = msg.escape(new)
            reps.append(comp_sep.join(comps))
        return rep_sep.join(reps)

    def _free_field(self, msg, raw: str, pid: str, known, path: str) -> str:
        rep_sep = msg.separators[2]
        out = []
        repeated = rep_sep in raw
        for n, rep in enumerate(raw.split(rep_sep), start=1):
            text = msg.unescape(rep)
            if text.strip():
                where = f"{path}({n})" if repeated else path
                rep = msg.escape(self.free_text(text, pid, known, path=where))
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


def rewriter(deidentifier, key=None, rules: list[FieldRule] | None = None) -> Hl7Deidentifier:
    """The run's HL7 v2 rewriter (DeidKeyError without a key); `key`: the run's (a
    Deidentifier whose mode needs none keeps none)."""
    return Hl7Deidentifier(deidentifier, key=key, rules=rules)


# a file of another suffix is HL7 where its content starts with MSH, with --input-format hl7v2
FORMAT = Format(
    name="hl7v2",
    kind="interchange",
    suffixes=(".hl7",),
    modules=("hl7",),
    extra="hl7",
    interchange=Interchange(is_hl7, load_rules, "hl7_rules", rewriter),
)
