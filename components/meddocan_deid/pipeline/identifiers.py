"""Identifier numbers and addresses in every section: `meddocan_identifiers`.

Reads `doc.text`, `doc.ents` and the rule entities (`doc.spans[rules_key]`), with pattern
data read at `[initialize]` and saved with the pipeline; writes its identifiers to
`doc.spans[spans_key]` and to `doc.ents`, trimming or removing the entities they overlap.
Never touches tokens, sections or other span groups.
"""

import ipaddress
import re
from collections.abc import Callable, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span
from stdnum import iban as std_iban
from stdnum.es import ccc as std_ccc
from stdnum.es import dni as std_dni
from stdnum.es import nie as std_nie

from .. import LABELS
from .serialize import PatternState

SPANS_KEY = "identifiers"
# Between a key and its value: blanks (line breaks too), `:`, `.`, `#`, `nº`, `número`.
DEFAULT_CONNECTOR = r"(?:[\s:.#=\-]|\b(?:n[º°o]\.?|número|núm\.?|num\.?|es(?:\s+el)?)(?!\w))*"
_SEPARATORS = re.compile(r"[\s.\-/()]")
_LEADING = "+("
_TRAILING = ".,;:)]}»\"'!?"  # punctuation that ends a sentence, not a URL or e-mail
NUMBER_LABEL_PREFIXES = ("ID_", "NUMERO_", "IDENTIF_", "OTRO_NUMERO_IDENTIF")
EDGE_PUNCT = set(".,;:-()/\"'[]")


def _compact(value: str) -> str:
    return _SEPARATORS.sub("", value).upper()


def _valid_nass(value: str) -> bool:
    """NASS (12 digits): the last two are (province + number) mod 97."""
    digits = _compact(value)
    if not digits.isdigit() or len(digits) != 12:
        return False
    province, number, check = int(digits[:2]), int(digits[2:10]), int(digits[10:])
    base = number + province * 10**7 if number < 10**7 else int(digits[:10])
    return base % 97 == check


def _valid_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _valid_phone_es(value: str) -> bool:
    """9 digits from 6/7/8/9 after an optional +34/0034, not one repeated digit,
    and grouped like a phone (one kind of separator, no one-digit group:
    `6 1234 5678 9` is not a phone; a first group of four, `7255-34-013`, is a catalogue
    reference: Spanish numbers open with two or three digits)."""
    body = value.strip()
    if len(re.sub(r"\D", "", body)) > 9:
        body = re.sub(r"^\(?(?:\+\s?|00)?34\)?[ \-.]*", "", body)
    digits = re.sub(r"\D", "", body)
    if len(digits) != 9 or digits[0] not in "6789" or len(set(digits)) == 1:
        return False
    separators = set(re.findall(r"\D+", body))
    groups = re.split(r"\D+", body)
    return (
        len(separators) <= 1
        and all(len(g) >= 2 for g in groups)
        and (len(groups) == 1 or len(groups[0]) <= 3)
    )


def _valid_phone_intl(value: str) -> bool:
    """A foreign number: `+` or `00`, not Spain's 34 (phone_es checks those), 10 to 15
    digits after the prefix (E.164 allows 15 with the country code)."""
    body = value.strip().lstrip("+ ")
    if body.startswith("00"):
        body = body[2:]
    digits = re.sub(r"\D", "", body)
    return not digits.startswith("34") and 10 <= len(digits) <= 15 and len(set(digits)) > 1


VALIDATORS: dict[str, Callable[[str], bool]] = {
    "dni": lambda v: std_dni.is_valid(_compact(v)),
    "nie": lambda v: std_nie.is_valid(_compact(v)),
    "iban": lambda v: std_iban.is_valid(_compact(v)),
    "ccc": lambda v: std_ccc.is_valid(_compact(v)),
    "nass": _valid_nass,
    "ip": _valid_ip,
    "phone_es": _valid_phone_es,
    "phone_intl": _valid_phone_intl,
}
# the validators above that check a control digit or letter (a match is an identifier for sure)
CHECK_DIGIT_VALIDATORS = ("dni", "nie", "iban", "ccc", "nass")


def validate_patterns(patterns: Iterable[dict]) -> list[dict]:
    """Check each pattern (errors name its number and kind, never its text). A pattern
    (`configs/patterns/identifiers.jsonl`) is a `kind` with a `label`, a value regex
    (`pattern`), optional `keys` (regexes: `DNI`, `NASS`, `nhc-`...), a `prefix` kept out of
    the value (`nhc-` after `CIPA:`, guideline N17.1), `keyless` (the value also counts
    without a key) and a `validator` (checked on keyless values only: after a key the value
    is PHI even with a wrong check letter)."""
    clean = []
    for i, p in enumerate(patterns, start=1):
        kind = p.get("kind") if isinstance(p, dict) else None
        where = f"identifier pattern {i} ({kind or 'no kind'})"
        if not isinstance(p, dict) or not kind or not p.get("pattern"):
            raise ValueError(f"{where}: needs 'kind', 'label' and 'pattern'")
        if p.get("label") not in LABELS:
            raise ValueError(f"{where}: label {p.get('label')!r} is not a MEDDOCAN label")
        if not p.get("keys") and not p.get("keyless"):
            raise ValueError(f"{where}: needs 'keys' or 'keyless': true")
        if p.get("validator") is not None and p["validator"] not in VALIDATORS:
            raise ValueError(
                f"{where}: unknown validator {p['validator']!r} (known: {sorted(VALIDATORS)})"
            )
        for field in (
            "pattern",
            "prefix",
            "connector",
            *[f"keys[{k}]" for k in range(len(p.get("keys") or []))],
        ):
            regex = p["keys"][int(field[5:-1])] if field.startswith("keys[") else p.get(field)
            if regex is None:
                continue
            try:
                re.compile(regex)
            except re.error as err:
                raise ValueError(f"{where}: invalid regex in {field}: {err}") from None
        try:
            _Kind(p)
        except re.error as err:
            raise ValueError(f"{where}: the regexes do not combine: {err}") from None
        clean.append(dict(p))
    return clean


class _Kind:
    # Keys and values are regexes over `doc.text`, not Matcher patterns: keys glue to values
    # in ways the tokenizer splits differently (`nhc-1234567`, `NºSocio:5547`, `Tfno.+34`),
    # values cross token and line boundaries (`45873912-\nK`), and spans are aligned with
    # `doc.char_span(..., alignment_mode="expand")`.
    def __init__(self, p: dict):
        self.kind, self.label = p["kind"], p["label"]
        self.validator = VALIDATORS.get(p.get("validator") or "")
        flags = re.IGNORECASE if p.get("ignore_case") else 0
        # a keyless value is not glued to a word, a number or an address around it;
        # after a key, a period may precede it (`Tfno.+34...`)
        value = f"(?P<value>{p['pattern']})(?![\\w@]|[.,/]\\w)"
        self.keyless = re.compile(f"(?<![\\w@.]){value}", flags) if p.get("keyless") else None
        self.keyed = None
        if p.get("keys"):
            keys = "|".join(f"(?:{k})" for k in p["keys"])
            connector = p.get("connector", DEFAULT_CONNECTOR)
            prefix = p.get("prefix", "")
            # keys are case-insensitive; the value keeps its own case rule
            self.keyed = re.compile(
                f"(?<!\\w)(?i:{keys}){connector}(?i:{prefix})(?<![\\w@]){value}", flags
            )
            self.key_words = re.compile(f"(?i:{keys})")

    def find(self, text: str) -> list[tuple[int, int, bool]]:
        """(start, end, keyed) of the values in `text`."""
        found = []
        if self.keyed is not None:
            found += [
                (*_trim(text, m.start("value"), m.end("value")), True)
                for m in self.keyed.finditer(text)
            ]
        if self.keyless is not None:
            for m in self.keyless.finditer(text):
                start, end = _trim(text, m.start("value"), m.end("value"))
                if self.validator is None or self.validator(text[start:end]):
                    found.append((start, end, False))
        return [f for f in found if f[1] > f[0]]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    # the gold standard leaves a leading `+` or `(` out: `+34 612...` is `34 612...`
    while start < end and (text[start] in _LEADING or text[start].isspace()):
        start += 1
    while end > start and (text[end - 1] in _TRAILING or text[end - 1].isspace()):
        end -= 1
    return start, end


@Language.factory(
    "meddocan_identifiers",
    default_config={"spans_key": SPANS_KEY, "rules_key": "rule_entities", "fields_key": "fields"},
    assigns=["doc.ents", "doc.spans"],
)
def make_identifiers(
    nlp: Language, name: str, *, spans_key: str, rules_key: str, fields_key: str
) -> "Identifiers":
    return Identifiers(nlp, name, spans_key=spans_key, rules_key=rules_key, fields_key=fields_key)


class Identifiers(PatternState):
    check_patterns = staticmethod(validate_patterns)

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str = SPANS_KEY,
        rules_key: str = "rule_entities",
        fields_key: str = "fields",
    ):
        self.name = name
        self.spans_key = spans_key
        self.rules_key = rules_key
        self.fields_key = fields_key
        self.patterns: list[dict] = []
        self._compile()

    def initialize(
        self,
        get_examples: Callable | None = None,
        *,
        nlp: Language | None = None,
        patterns: Iterable[dict] | None = None,
    ) -> None:
        if patterns is not None:
            self.add_patterns(patterns)

    def add_patterns(self, patterns: Iterable[dict]) -> None:
        self.patterns = self.patterns + validate_patterns(patterns)
        self._compile()

    def _compile(self) -> None:
        self._kinds = [_Kind(p) for p in self.patterns]
        keys = [k for p in self.patterns for k in p.get("keys") or []]
        self._key_token = (
            re.compile("|".join(f"(?:{k})" for k in keys), re.IGNORECASE) if keys else None
        )

    def candidates(self, doc: Doc) -> list[tuple[Span, bool]]:
        """Non-overlapping identifier spans (kind in `kb_id_`) and whether a key
        preceded each: keyed values first, then the longest."""
        found = []
        text = doc.text  # built from the tokens on each access
        for order, kind in enumerate(self._kinds):
            for start, end, keyed in kind.find(text):
                span = doc.char_span(start, end, label=kind.label, alignment_mode="expand")
                if span is not None and len(span):
                    found.append((not keyed, -(end - start), start, order, span, kind.kind))
        found.sort(key=lambda f: f[:4])  # ties: the pattern listed first
        taken: set[int] = set()
        spans = []
        for keyless, *_, span, kind in found:
            if taken.isdisjoint(range(span.start, span.end)):
                taken.update(range(span.start, span.end))
                spans.append(
                    (Span(doc, span.start, span.end, label=span.label, kb_id=kind), not keyless)
                )
        return sorted(spans, key=lambda s: s[0].start)

    def _sensible(self, doc: Doc, start: int, end: int) -> tuple[int, int] | None:
        """The piece [start, end) of a trimmed entity without edge blanks, punctuation
        and identifier keys, if some word of 2+ letters or digits is left."""

        def edge(token) -> bool:
            return (
                token.is_space
                or token.text in EDGE_PUNCT
                or bool(self._key_token is not None and self._key_token.fullmatch(token.text))
            )

        while start < end and edge(doc[start]):
            start += 1
        while end > start and edge(doc[end - 1]):
            end -= 1
        if any(sum(c.isalnum() for c in t.text) >= 2 for t in doc[start:end]):
            return start, end
        return None

    def __call__(self, doc: Doc) -> Doc:
        # The NER rarely sees a DNI, IBAN, URL or phone in a report body, and the header and
        # footer rules only fire after their keys in their own section. An identifier wins
        # over an overlapping entity, which is trimmed around it when what is left still
        # looks like an entity (a piece of a number label needs a digit), else removed;
        # except that a rule entity with the same label keeps its span (the header rules
        # already give the gold-style value).
        candidates = self.candidates(doc)
        if not candidates:
            doc.spans[self.spans_key] = []
            return doc
        labels = {p["label"] for p in self.patterns}
        first, last = min(s.start for s, _ in candidates), max(s.end for s, _ in candidates)
        # the keyed field values (`fields`, any layout) are read by a generic value shape:
        # an identifier's own pattern knows its format better, so they do not protect a span
        fields = {(f.start, f.end, f.label) for f in doc.spans.get(self.fields_key, [])}
        rules = [
            (r.start, r.end, r.label)
            for r in doc.spans.get(self.rules_key, [])
            if r.start < last and first < r.end and (r.start, r.end, r.label) not in fields
        ]
        # A rule entity keeps its span (the gold-style header value) against a keyed
        # identifier of its label, and against any keyless one if it is an identifier
        # itself (`NASS: 765145412-1` is not a phone).
        spans = [
            s
            for s, keyed in candidates
            if not any(
                start < s.end
                and s.start < end
                and (label == s.label or (not keyed and label in labels))
                for start, end, label in rules
            )
        ]
        doc.spans[self.spans_key] = spans
        if not spans:
            return doc
        covered = set(i for s in spans for i in range(s.start, s.end))
        ents: list[Span] = list(spans)
        for ent in doc.ents:
            inside = covered.intersection(range(ent.start, ent.end))
            if not inside:
                ents.append(ent)
                continue
            for piece in ((ent.start, min(inside)), (max(inside) + 1, ent.end)):
                kept = self._sensible(doc, *piece) if piece[1] > piece[0] else None
                # what is left of a number entity without a digit is a word (`del`, `Marruecos):`)
                if (
                    kept is not None
                    and ent.label_.startswith(NUMBER_LABEL_PREFIXES)
                    and not any(c.isdigit() for t in doc[kept[0] : kept[1]] for c in t.text)
                ):
                    kept = None
                if kept is not None and covered.isdisjoint(range(*kept)):
                    ents.append(Span(doc, kept[0], kept[1], label=ent.label, kb_id=ent.kb_id))
        doc.ents = sorted(ents, key=lambda e: e.start)
        return doc
