"""FHIR R4 JSON (a Bundle, a single resource, or NDJSON bulk export): a source and sink that
writes FHIR back, de-identified. In a run (engine/interchange.py) each file is an item: every
file is `collect_text`-ed first, then `rewrite`-n; the service and Spark use the same rewriter.

Structured elements follow a rule set (data: `formats/data/fhir_rules.json`, or a JSON file of
the same shape given as `rules`), a list of `{"path", "action", ...}`:

- `path`: `Type.element` (a top-level element of resources of that type), `*.element` (of every
  type), or `**` (every date anywhere: only with `shift_date`);
- `action`: `redact` (the element is removed), `surrogate` (its strings, by `labels`, field ->
  MEDDOCAN label, `""` for the element itself, and `by_system` for telecom, go through the
  Deidentifier's operator for that label, keyed by the patient), `hash` (keyed HMAC of the
  strings of `labels`), `shift_date` (every FHIR date, dateTime and instant moved by the
  patient's keyed offset, the same offset as the dates of that patient's narratives, so the
  intervals between a patient's resources hold).

Resource ids, `fullUrl` and every `reference` are replaced by keyed digests, so the same id maps
to the same new id across resources and files. Free text (`Narrative.div` text nodes,
`Annotation.text`, `valueString`, base64 `text/plain` and `text/html` attachments) goes through
the Deidentifier with the patient's structured values (names, identifiers, telecom, address,
relatives, practitioners) as known PHI. Messages name the file and the problem, never text.
"""

import base64
import copy
import dataclasses
import datetime as dt
import hashlib
import hmac
import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace

from ..deid.keys import Keyed, as_key
from ..deid.surrogates.dates import offset_for
from ..errors import DeidKeyError
from .base import Format, Interchange
from .fhir_rules import ACTIONS, RULES_FILE, FhirError, Rule, load_rules, parse_rules
from .found import Found

__all__ = [
    "ACTIONS",
    "RULES_FILE",
    "FhirDeidentifier",
    "FhirError",
    "Rule",
    "load_rules",
    "parse_rules",
]

SUFFIXES = (".json", ".ndjson", ".fhir.json")
DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2})(T[0-9:.]+(?:Z|[+-]\d{2}:\d{2})?)?)?)?$")
# keys whose strings are codes or links, never dates or free text
NOT_DATES = frozenset({"id", "reference", "fullUrl", "system", "code", "url", "version"})
# the elements of a resource that name its patient
PATIENT_KEYS = ("subject", "patient", "beneficiary", "individual")
HASH_CHARS = 16
DATE_LABEL = "FECHAS"  # the MEDDOCAN label of a date shifted by rule, in the review outputs
MAX_ATTEMPTS = 8  # keyed attempts at a surrogate that holds no known word


# -- reading ----------------------------------------------------------------------------------
def parse_resources(raw: str, name: str) -> list[dict]:
    """The top-level resources of a file's text: a Bundle or resource (JSON), or one a line
    (NDJSON: by the name's suffix, or lines of objects). FhirError names the file (and, for
    NDJSON, the line)."""
    return [res for _where, res in parse_located(raw, name)]


def parse_located(raw: str, name: str) -> list[tuple[str, dict]]:
    """(where in the file, resource) of each top-level resource (`parse_resources`): `line <n>`
    of NDJSON, `resource 1` of JSON."""
    stripped = raw.strip()
    ndjson = name.lower().endswith(".ndjson") or (
        "\n{" in stripped and not stripped.startswith("[")
    )
    found: list[tuple[str, object]] = []  # (how a message names it, the parsed JSON)
    if ndjson:
        for n, line in enumerate(raw.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                found.append((f"line {n}", json.loads(line)))
            except ValueError:
                raise FhirError(f"{name}: line {n}: not valid JSON") from None
    else:
        try:
            found.append(("resource 1", json.loads(stripped)))
        except ValueError as err:
            raise FhirError(
                f"{name}: not valid JSON (line {getattr(err, 'lineno', '?')})"
            ) from None
    if not found:
        raise FhirError(f"{name}: no FHIR resource")
    resources: list[tuple[str, dict]] = []
    for where, res in found:
        if not isinstance(res, dict) or not isinstance(res.get("resourceType"), str):
            raise FhirError(f"{name}: {where} has no 'resourceType'")
        resources.append((where, res))
    return resources


def read_resources(path: Path) -> list[dict]:
    """The top-level resources of a file: a Bundle or resource (JSON), or one a line (NDJSON)."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise FhirError(f"{path}: cannot read ({type(err).__name__})") from None
    return parse_resources(raw, str(path))


def dump_resources(resources: list[dict], name: str) -> str:
    """A file's resources written back: one a line for NDJSON (or several), else indented."""
    if name.lower().endswith(".ndjson") or len(resources) > 1:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in resources)
    return json.dumps(resources[0], ensure_ascii=False, indent=2) + "\n"


def is_fhir(path: Path) -> bool:
    """Whether a .json/.ndjson file holds FHIR (its first object has a resourceType)."""
    if not any(str(path).lower().endswith(s) for s in SUFFIXES):
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            head = fh.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return '"resourceType"' in head


def iter_resources(resource: dict) -> Iterator[dict]:
    """A resource and those it holds (Bundle entries, contained resources)."""
    yield resource
    for entry in resource.get("entry") or []:
        if isinstance(entry, dict) and isinstance(entry.get("resource"), dict):
            yield from iter_resources(entry["resource"])
    for contained in resource.get("contained") or []:
        if isinstance(contained, dict):
            yield from iter_resources(contained)


def _strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def patient_of(resource: dict) -> str | None:
    """The id of the patient a resource is about (`Patient/<id>` of its subject...), or None."""
    if resource.get("resourceType") == "Patient":
        return str(resource.get("id", ""))
    for key in PATIENT_KEYS:
        ref = resource.get(key)
        if isinstance(ref, dict) and isinstance(ref.get("reference"), str):
            kind, _, rid = ref["reference"].rpartition("/")
            if kind.endswith("Patient"):
                return rid
    return None


# -- de-identifying ---------------------------------------------------------------------------
class FhirDeidentifier:
    """De-identify FHIR resources with a `Deidentifier` (its mode and policy for free text and
    `surrogate` rules) and a key (for hashes, ids and date offsets: the Deidentifier's own when
    it has one). Call `collect` on every input first (the known PHI of each patient, across
    files), then `resource` on each."""

    def __init__(self, deidentifier, *, key=None, rules: list[Rule] | None = None):
        self.deid = deidentifier
        key = key if key is not None else getattr(deidentifier, "key", None)
        if key is None:
            raise DeidKeyError("FHIR de-identification needs a key (ids, hashes, date offsets)")
        self.key = as_key(key)
        self.rules = rules if rules is not None else load_rules()
        # structured values are whole names, never kinship words kept as context ("Nieto")
        self.structured = deidentifier.configured(
            deidentifier.mode, dataclasses.replace(deidentifier.options, keep_kinship=False)
        )
        self.known: dict[str, dict[str, list[str]]] = {}  # patient id -> label -> values
        self.staff: dict[str, list[str]] = {}  # practitioners, organisations: for every text
        self.per_label: Counter = Counter()  # values replaced per label (structured and text)
        # a run's review outputs: each value of the file last rewritten, by its path
        self.recording = False
        self.found: list[Found] | None = None

    # a run's files (the Run, the service, Spark): every file collected first, then rewritten
    def collect_text(self, text: str, where: str) -> None:
        """The known PHI of a file's resources (FhirError naming `where`)."""
        for res in parse_resources(text, where):
            self.collect(res)

    def rewrite(self, text: str, where: str) -> tuple[str, dict[str, int]]:
        """A file's text de-identified, in its form (JSON or NDJSON), and the values replaced
        per label (FhirError naming `where`)."""
        located = parse_located(text, where)
        self.per_label = Counter()
        self.found = [] if self.recording else None
        out = [
            self.resource(res, f"{at}: {res['resourceType']}" if len(located) > 1 else None)
            for at, res in located
        ]
        return dump_resources(out, where), dict(self.per_label)

    # known PHI: the values the rules replace, per patient
    def collect(self, resource: dict) -> None:
        for res in iter_resources(resource):
            kind = res.get("resourceType")
            pid = patient_of(res)
            target = self.known.setdefault(pid, {}) if pid is not None else self.staff
            if kind in ("Practitioner", "Organization", "Location"):
                target = self.staff
            for rule in self._rules_for(kind):
                if rule.action == "redact" or rule.element == "**":
                    continue
                for item in _listed(res.get(rule.element)):
                    for _field, label, value in self._fields(rule, item):
                        if len(value.strip()) >= 2:
                            target.setdefault(label, []).append(value)

    def known_phi(self, pid: str | None) -> dict[str, list[str]]:
        merged: dict[str, list[str]] = {}
        for source in (self.staff, self.known.get(pid, {}) if pid is not None else {}):
            for label, values in source.items():
                merged.setdefault(label, [])
                merged[label].extend(v for v in values if v not in merged[label])
        return {label: values[:200] for label, values in merged.items()}

    def resource(self, resource: dict, path: str | None = None) -> dict:
        """A de-identified copy of a resource (a Bundle with its entries); `path`: how the
        values found in it are named (default: its type, `Patient.name[0].family`)."""
        out = copy.deepcopy(resource)
        self._resource(out, None, path or str(out.get("resourceType")))
        return out

    def note(self, found: Found) -> None:
        """Record a value found (when recording)."""
        if self.found is not None:
            self.found.append(found)

    def _resource(self, res: dict, bundle_patient: str | None, path: str) -> None:
        kind = res.get("resourceType")
        pid = patient_of(res) or bundle_patient
        for rule in self._rules_for(kind):
            if rule.element == "**" or rule.element not in res:
                continue
            where = f"{path}.{rule.element}"
            if rule.action == "redact":
                del res[rule.element]
                self.note(Found(where, "", "", removed=True))
            elif rule.action == "shift_date":
                res[rule.element] = self._dates(res[rule.element], pid, force=True, path=where)
            else:
                many = isinstance(res[rule.element], list)
                for i, item in enumerate(_listed(res[rule.element])):
                    self._replace_fields(rule, item, res, pid, f"{where}[{i}]" if many else where)
        if any(r.element == "**" for r in self._rules_for(kind)):
            for key in list(res):
                if key not in ("entry", "contained", "resourceType"):
                    res[key] = self._dates(res[key], pid, parent_key=key, path=f"{path}.{key}")
        if isinstance(res.get("id"), str):
            res["id"] = self.new_id(kind, res["id"])
        self._free_text(res, pid, path=path)
        self._references(res)
        for i, entry in enumerate(res.get("entry") or []):
            if not isinstance(entry, dict):
                continue
            if isinstance(entry.get("fullUrl"), str):
                entry["fullUrl"] = self.new_reference(entry["fullUrl"])
            if isinstance(entry.get("resource"), dict):
                inner = entry["resource"]
                inner_path = f"{path}.entry[{i}].{inner.get('resourceType')}"
                self._resource(inner, patient_of(inner) or pid, inner_path)
        for i, contained in enumerate(res.get("contained") or []):
            if isinstance(contained, dict):
                inner_path = f"{path}.contained[{i}].{contained.get('resourceType')}"
                self._resource(contained, pid, inner_path)

    def _rules_for(self, kind) -> list[Rule]:
        return [r for r in self.rules if r.resource in ("*", kind)]

    def _fields(self, rule: Rule, item) -> Iterator[tuple[str, str, str]]:
        """(field, label, value) of the strings of an element that a rule names."""
        if isinstance(item, str):
            if "" in rule.labels:
                yield "", rule.labels[""], item
            return
        if not isinstance(item, dict):
            return
        for fname, label in rule.labels.items():
            if fname == "value" and rule.by_system:
                label = rule.by_system.get(str(item.get("system")), label)
            for value in _strings(item.get(fname)):
                yield fname, label, value

    def _replace_fields(self, rule: Rule, item, holder: dict, pid: str | None, path: str) -> None:
        if isinstance(item, str):  # an element that is itself a string (Organization.name)
            if "" in rule.labels:
                holder[rule.element] = self._value(rule, rule.labels[""], item, pid, path)
            return
        if not isinstance(item, dict):
            return
        for fname, label in rule.labels.items():
            if fname == "value" and rule.by_system:
                label = rule.by_system.get(str(item.get("system")), label)
            value = item.get(fname)
            if isinstance(value, str):
                item[fname] = self._value(rule, label, value, pid, f"{path}.{fname}")
            elif isinstance(value, list):
                item[fname] = [
                    self._value(rule, label, v, pid, f"{path}.{fname}[{j}]")
                    if isinstance(v, str)
                    else v
                    for j, v in enumerate(value)
                ]

    def _value(self, rule: Rule, label: str, value: str, pid: str | None, path: str) -> str:
        if rule.action == "hash":
            return self.hashed(value, label, path)
        return self.surrogate(value, label, pid, self.known_phi(pid), path=path)

    def hashed(self, value: str, label: str, path: str | None = None) -> str:
        """The keyed digest of a structured `value` (recorded at `path`)."""
        self.per_label[label] += 1
        new = self._digest("value", value)
        if path is not None:
            self.note(Found.whole(path, value, new, label))
        return new

    def surrogate(
        self, value: str, label: str, pid: str | None, known: Mapping, *, path: str | None = None
    ) -> str:
        """The operator's value for a structured `value`, keyed by the patient; when it would
        hold a word of the patient's known values (another person's name, the value itself),
        the next keyed attempt, so that no known value is left anywhere by chance. `path`:
        where the value is, for the run's review outputs."""
        if not value.strip():
            return value
        new = self._surrogate(value, label, pid, known)
        if path is not None:
            self.note(Found.whole(path, value, new, label))
        return new

    def _surrogate(self, value: str, label: str, pid: str | None, known: Mapping) -> str:
        self.per_label[label] += 1
        avoid = {w for values in known.values() for v in values for w in _words(v)}
        avoid |= _words(value)
        new = value
        for attempt in range(MAX_ATTEMPTS):
            scope = (pid or "-") if attempt == 0 else f"{pid or '-'}\x1f{attempt}"
            new = self.structured.replace(value, [(label, 0, len(value))], patient_id=scope)[1].text
            if not _words(new) & avoid:
                return new
        return new

    def _digest(self, kind: str, value: str) -> str:
        msg = f"fhir\x1f{kind}\x1f{value}".encode()
        return hmac.new(self.key, msg, hashlib.sha256).hexdigest()[:HASH_CHARS]

    # ids and references: the same id, the same new id
    def new_id(self, kind, rid: str) -> str:
        return self._digest("id", f"{kind}/{rid}")

    def new_reference(self, ref: str) -> str:
        if ref.startswith("urn:uuid:"):
            d = self._digest("uuid", ref[9:]) + self._digest("uuid2", ref[9:])
            return f"urn:uuid:{d[:8]}-{d[8:12]}-{d[12:16]}-{d[16:20]}-{d[20:32]}"
        if ref.startswith("#"):
            return ref
        base, _, tail = ref.rstrip("/").rpartition("/")
        parts = ref.split("/")
        if len(parts) >= 2 and parts[-2][:1].isupper():  # [base/]Type/id
            prefix = "/".join(parts[:-2])
            new = f"{parts[-2]}/{self.new_id(parts[-2], parts[-1])}"
            return f"{prefix}/{new}" if prefix else new
        return ref if not base else f"{base}/{self._digest('id', tail)}"

    def _references(self, node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("entry", "contained"):
                    continue
                if key == "reference" and isinstance(value, str):
                    node[key] = self.new_reference(value)
                else:
                    self._references(value)
        elif isinstance(node, list):
            for value in node:
                self._references(value)

    # dates
    def offset(self, pid: str | None) -> int:
        # the keyed scope the Deidentifier gives the patient's narratives: the same offset
        ctx = SimpleNamespace(
            keyed=Keyed(self.key, f"patient:{pid or '-'}"), options=self.deid.options
        )
        return offset_for(ctx)  # type: ignore[arg-type]  # reads only .keyed and .options

    def _dates(self, node, pid, parent_key: str = "", force: bool = False, path: str = ""):
        if isinstance(node, str):
            if parent_key in NOT_DATES and not force:
                return node
            new = shift_date(node, self.offset(pid))
            if new != node:
                self.note(Found.whole(path, node, new, DATE_LABEL))
            return new
        if isinstance(node, list):
            return [
                self._dates(v, pid, parent_key, force, f"{path}[{i}]") for i, v in enumerate(node)
            ]
        if isinstance(node, dict):
            if node.get("resourceType") and parent_key:  # an inner resource: its own patient
                return node
            for key in list(node):
                node[key] = self._dates(
                    node[key], pid, key, force and key not in NOT_DATES, f"{path}.{key}"
                )
        return node

    # free text
    def _text(self, text: str, pid: str | None, path: str) -> str:
        return self.free_text(text, pid, self.known_phi(pid), path=path)

    def free_text(
        self, text: str, pid: str | None, known: Mapping, *, path: str | None = None
    ) -> str:
        """Free text through the Deidentifier with `known` as known PHI; when a word of a known
        value is still there (a relative's surname that is a kinship word, kept as context),
        again without keeping kinship words. `path`: where the text is, for the run's review
        outputs."""
        if not text.strip():
            return text
        known = {label: list(values) for label, values in known.items()}
        result = self.deid.deidentify(text, patient_id=pid or "-", known_phi=known)
        known_words = {w for values in known.values() for v in values for w in _words(v)}
        if _words(result.text) & known_words & _words(text):
            result = self.structured.deidentify(text, patient_id=pid or "-", known_phi=known)
        self.per_label.update(r.label for r in result.replacements)
        if path is not None:
            self.note(Found(path, text, result.text, tuple(result.replacements)))
        return result.text

    def _free_text(self, node, pid, parent_key: str = "", path: str = "") -> None:
        if isinstance(node, list):
            for i, v in enumerate(node):
                self._free_text(v, pid, parent_key, f"{path}[{i}]")
            return
        if not isinstance(node, dict):
            return
        for key in list(node):
            value = node[key]
            where = f"{path}.{key}"
            if key in ("entry", "contained"):
                continue
            if key == "div" and isinstance(value, str):
                node[key] = self._xhtml(value, pid, where)
            elif key == "valueString" and isinstance(value, str):
                node[key] = self._text(value, pid, where)
            elif key == "text" and isinstance(value, str) and parent_key == "note":
                node[key] = self._text(value, pid, where)
            elif key == "data" and isinstance(value, str) and "contentType" in node:
                node[key] = self._attachment(node, value, pid, where)
            else:
                self._free_text(value, pid, key, where)

    def _xhtml(self, div: str, pid, path: str) -> str:
        from lxml import etree  # the fhir extra

        try:
            root = etree.fromstring(div.encode("utf-8"))
        except etree.XMLSyntaxError:
            raise FhirError("a Narrative.div is not well-formed XHTML") from None
        self._text_nodes(root, pid, path)
        return etree.tostring(root, encoding="unicode")

    def _text_nodes(self, root, pid, path: str) -> None:
        """Each text node of an XHTML or HTML tree through `_text`, listed as the n-th text of
        the element that holds it (`path (text n)`)."""
        n = 0
        for el in root.iter():
            if not isinstance(el.tag, str):
                continue
            for part in ("text", "tail"):
                value = getattr(el, part)
                if not value or (part == "tail" and el is root):
                    continue
                if value.strip():
                    n += 1
                setattr(el, part, self._text(value, pid, f"{path} (text {n})"))

    def _attachment(self, node: dict, data: str, pid, path: str) -> str:
        ctype = str(node.get("contentType", "")).split(";")[0].strip().lower()
        if ctype not in ("text/plain", "text/html"):
            return data
        try:
            text = base64.b64decode(data, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            raise FhirError("an attachment's data is not base64 of UTF-8 text") from None
        if ctype == "text/plain":
            out = self._text(text, pid, path)
        else:
            from lxml import html as lxml_html  # the fhir extra

            root = lxml_html.fromstring(text)
            self._text_nodes(root, pid, path)
            out = lxml_html.tostring(root, encoding="unicode")
        return base64.b64encode(out.encode("utf-8")).decode("ascii")


def _words(text: str) -> set[str]:
    """The casefolded words of 3+ letters or digits of a text."""
    return {w for w in re.findall(r"\w{3,}", text.casefold())}


def _listed(value) -> list:
    return value if isinstance(value, list) else [value] if value is not None else []


def shift_date(value: str, days: int) -> str:
    """A FHIR date, dateTime or instant moved by `days`, its precision kept; else as is."""
    m = DATE.match(value)
    if m is None:
        return value
    year, month, day, time = m.groups()
    try:
        base = dt.date(int(year), int(month or 7), int(day or 1))
    except ValueError:
        return value
    new = base + dt.timedelta(days=days)
    if month is None:
        return f"{new.year:04d}"
    if day is None:
        return f"{new.year:04d}-{new.month:02d}"
    return f"{new.isoformat()}{time or ''}"


# -- files ------------------------------------------------------------------------------------
def deidentify_paths(
    inputs: list[Path], output: Path, fhir_deid: FhirDeidentifier
) -> list[tuple[Path, Path]]:
    """De-identify FHIR files (or folders: their FHIR files, recognised by content) into
    `output`, keeping relative names; returns (input, output) pairs. Two passes: the known PHI
    of every patient first, so that references and free text agree across files."""
    files: list[tuple[Path, Path]] = []
    for src in inputs:
        if src.is_dir():
            files += [(p, p.relative_to(src)) for p in sorted(src.rglob("*")) if is_fhir(p)]
        else:
            files.append((src, Path(src.name)))
    loaded = [(src, rel, read_resources(src)) for src, rel in files]
    for _src, _rel, resources in loaded:
        for res in resources:
            fhir_deid.collect(res)
    written = []
    for src, rel, resources in loaded:
        out = [fhir_deid.resource(res) for res in resources]
        dest = output / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(dump_resources(out, src.name), "utf-8")
        written.append((src, dest))
    return written


def validate(resource: dict) -> None:
    """Raise FhirError when a resource is not valid FHIR R4 (fhir.resources, the `fhir` extra)."""
    try:
        from fhir.resources.R4B import get_fhir_model_class
    except ImportError:
        raise FhirError(
            "validating FHIR needs the fhir extra: pip install 'meddocan-deid[fhir]'"
        ) from None
    try:
        get_fhir_model_class(resource["resourceType"]).model_validate(resource)
    except Exception as err:  # pydantic's ValidationError and unknown types alike
        raise FhirError(
            f"not valid FHIR R4 {resource.get('resourceType')}: {type(err).__name__}"
        ) from None


def rewriter(deidentifier, key=None, rules: list[Rule] | None = None) -> FhirDeidentifier:
    """The run's FHIR rewriter (DeidKeyError without a key); `key`: the run's (a
    Deidentifier whose mode needs none keeps none)."""
    return FhirDeidentifier(deidentifier, key=key, rules=rules)


# a .json file is FHIR where its content is (`is_fhir`); the registry's lookup checks it
FORMAT = Format(
    name="fhir",
    kind="interchange",
    suffixes=(".json", ".ndjson"),
    modules=("lxml",),
    extra="fhir",
    interchange=Interchange(is_fhir, load_rules, "fhir_rules", rewriter),
)
