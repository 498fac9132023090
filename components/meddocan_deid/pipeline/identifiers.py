"""Identifier numbers and addresses in every section: `meddocan_identifiers`.

Reads `doc.text`, `doc.ents`, the rule entities (`doc.spans[rules_key]`) and the document's
country (the `country` setting when set, else `doc._.country` where that extension is registered
), with pattern data read at `[initialize]` and saved with the pipeline;
writes its identifiers to `doc.spans[spans_key]` and to `doc.ents`, trimming or removing the
entities they overlap, and to `doc.spans[rejects_key]` the values written in an identifier's
own shape whose check fails without a key before them (left alone by `code_shapes`). Never
touches tokens, sections or other span groups.

The country (ISO 3166 alpha-2, `MX`) decides two things only: national-format phone numbers
(`phone_national`) are looked for, and a value two kinds read alike goes to the kind of the
document's country. Without it every kind is looked for and the value decides.
"""

import ipaddress
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from spacy.language import Language
from spacy.tokens import Doc, Span
from stdnum import iban as std_iban
from stdnum.es import ccc as std_ccc
from stdnum.es import dni as std_dni
from stdnum.es import nie as std_nie

from .. import LABELS
from ..id_checks import CHECKS as NATIONAL_CHECKS
from ..id_checks import SHAPE_CHECKS
from ..lexicon import words
from . import phones
from .serialize import PatternState

SPANS_KEY = "identifiers"
REJECTS_KEY = "identifier_rejects"
COUNTRY = re.compile(r"[A-Z]{2}")
GUARD_WINDOW = 30  # characters before a value in which a code cue makes it no phone
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
    reference: Spanish numbers open with two or three digits; `612-34-5678` is grouped as a
    US SSN, never as a Spanish phone)."""
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
        and [len(g) for g in groups] != [3, 2, 4]  # `123-45-6789`: a US SSN's grouping
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
    "phone_cc": phones.with_country_code,
    # the identifiers of the Americas (meddocan_deid.id_checks)
    **NATIONAL_CHECKS,
}
# validators that need the document's country: (value, country) -> bool
COUNTRY_VALIDATORS: dict[str, Callable[[str, str | None], bool]] = {
    "phone_national": phones.national,
}
# the validators above that check a control digit or letter (a match is an identifier for sure)
CHECK_DIGIT_VALIDATORS = ("dni", "nie", "iban", "ccc", "nass")


def _countries(p: dict) -> tuple[str, ...]:
    value = p.get("country") or ()
    return (value,) if isinstance(value, str) else tuple(value)


def _has_value(p: dict) -> bool:
    return bool(p.get("pattern") or p.get("shapes") or p.get("keyless_shapes"))


def validate_patterns(patterns: Iterable[dict]) -> list[dict]:
    """Check each pattern (errors name its number and kind, never its text). A pattern
    (`configs/patterns/identifiers.jsonl`) is a `kind` with a `label`, a value regex
    (`pattern`), optional `keys` (regexes: `DNI`, `NASS`, `nhc-`...), a `prefix` kept out of
    the value (`nhc-` after `CIPA:`, guideline N17.1), `keyless` (the value also counts
    without a key) and a `validator` (checked on keyless values only: after a key the value
    is PHI even with a wrong check letter).

    A kind of a country is written as a table row: `kind`, `country` (ISO 3166 alpha-2, or
    a list), `label`, `shapes` (the value's written forms after a key: regexes),
    `keyless_shapes` (the forms that also count without a key when the `validator` passes;
    one that fails is recorded as a rejected look-alike), `validator` and `keys`. Optional:
    `needs_country` (looked for without a key only when the document's country is the
    kind's, or any country when the kind has none; its validator gets the country),
    `clinical_guard` (a keyless value followed by a unit or after a code cue is not one)."""
    clean = []
    known = sorted(VALIDATORS) + sorted(COUNTRY_VALIDATORS)
    for i, p in enumerate(patterns, start=1):
        kind = p.get("kind") if isinstance(p, dict) else None
        where = f"identifier pattern {i} ({kind or 'no kind'})"
        if not isinstance(p, dict) or not kind or not _has_value(p):
            raise ValueError(f"{where}: needs 'kind', 'label' and 'pattern' (or 'shapes')")
        if p.get("pattern") and (p.get("shapes") or p.get("keyless_shapes")):
            raise ValueError(f"{where}: 'pattern' or 'shapes', not both")
        if p.get("label") not in LABELS:
            raise ValueError(f"{where}: label {p.get('label')!r} is not a MEDDOCAN label")
        if not p.get("keys") and not p.get("keyless") and not p.get("keyless_shapes"):
            raise ValueError(f"{where}: needs 'keys' or 'keyless': true (or 'keyless_shapes')")
        if p.get("validator") is not None and p["validator"] not in known:
            raise ValueError(f"{where}: unknown validator {p['validator']!r} (known: {known})")
        if p.get("keyless_shapes") and p.get("validator") is None:
            raise ValueError(f"{where}: 'keyless_shapes' needs a 'validator'")
        bad = [c for c in _countries(p) if not isinstance(c, str) or not COUNTRY.fullmatch(c)]
        if bad:
            raise ValueError(f"{where}: country {bad[0]!r} is not an ISO 3166 alpha-2 code")
        for field in ("shapes", "keyless_shapes", "keys"):
            if p.get(field) is not None and not (
                isinstance(p[field], list) and all(isinstance(r, str) and r for r in p[field])
            ):
                raise ValueError(f"{where}: '{field}' must be a list of regexes")
        shapes = [*(p.get("shapes") or []), *(p.get("keyless_shapes") or [])]
        for field in (
            "pattern",
            "prefix",
            "connector",
            *[f"keys[{k}]" for k in range(len(p.get("keys") or []))],
            *[f"shapes[{k}]" for k in range(len(shapes))],
        ):
            if field.startswith("keys["):
                regex = p["keys"][int(field[5:-1])]
            elif field.startswith("shapes["):
                regex = shapes[int(field[7:-1])]
            else:
                regex = p.get(field)
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


class Found(NamedTuple):
    """A value of a kind in a text: its characters, whether a key preceded it (and where
    that key starts), or whether it is a rejected look-alike (its keyless shape, its check
    failed)."""

    start: int
    end: int
    keyed: bool
    key_start: int
    rejected: bool = False
    checked: int = 1  # 0: its check passes, 1: none or of the shape alone, 2: it fails (keyed)


class _Kind:
    # Keys and values are regexes over `doc.text`, not Matcher patterns: keys glue to values
    # in ways the tokenizer splits differently (`nhc-1234567`, `NºSocio:5547`, `Tfno.+34`),
    # values cross token and line boundaries (`45873912-\nK`), and spans are aligned with
    # `doc.char_span(..., alignment_mode="expand")`.
    def __init__(self, p: dict):
        self.kind, self.label = p["kind"], p["label"]
        self.countries = _countries(p)
        self.needs_country = bool(p.get("needs_country"))
        self.clinical_guard = bool(p.get("clinical_guard"))
        name = p.get("validator") or ""
        # a check of the shape alone (a cédula without a check digit) ranks below a check digit
        self.shape_only = name in SHAPE_CHECKS
        self.validator: Callable[[str, str | None], bool] | None = None
        if name in COUNTRY_VALIDATORS:
            self.validator = COUNTRY_VALIDATORS[name]
        elif name in VALIDATORS:
            check = VALIDATORS[name]
            self.validator = lambda value, country: check(value)
        flags = re.IGNORECASE if p.get("ignore_case") else 0
        if p.get("shapes") or p.get("keyless_shapes"):
            # the keyless shapes, the fuller written forms, first: an alternation takes the
            # first that fits (`RFC: GODE 561231 GR8` whole, not `GODE 561231`)
            shapes = [*(p.get("keyless_shapes") or []), *(p.get("shapes") or [])]
            pattern = "|".join(f"(?:{r})" for r in shapes)
            keyless_pattern = "|".join(f"(?:{r})" for r in p.get("keyless_shapes") or [])
            # a value in a keyless shape whose check fails is a look-alike
            self.rejects = bool(keyless_pattern)
        else:
            pattern = p["pattern"]
            keyless_pattern = pattern if p.get("keyless") else ""
            self.rejects = False
        # a value is not glued to a word, a number or an address around it, nor the start
        # or the end of a longer code (`223-5624015-2` holds no `5624015-2`); after a key, a
        # period may precede it (`Tfno.+34...`)
        end = "(?![\\w@]|[.,/\\-]\\w)"
        self.keyless = (
            re.compile(f"(?<![\\w@.])(?<!\\w[\\-/])(?P<value>{keyless_pattern}){end}", flags)
            if keyless_pattern
            else None
        )
        self.keyed = None
        if p.get("keys"):
            keys = "|".join(f"(?:{k})" for k in p["keys"])
            connector = p.get("connector", DEFAULT_CONNECTOR)
            prefix = p.get("prefix", "")
            # keys are case-insensitive; the value keeps its own case rule
            self.keyed = re.compile(
                f"(?<!\\w)(?i:{keys}){connector}(?i:{prefix})(?<![\\w@])(?P<value>{pattern}){end}",
                flags,
            )
            self.key_words = re.compile(f"(?i:{keys})")

    def applies_keyless(self, country: str | None) -> bool:
        """Whether values without a key are looked for in a document of `country`. A kind of
        any country (national phones) is not looked for in Spain's reports: Spanish numbers
        have kinds of their own, and `meddocan_deid.country` calls a report Spanish when
        nothing else shows (`666-12-3456` is an SSN's shape, not a phone)."""
        if not self.needs_country:
            return True
        if not self.countries:
            return country is not None and country != "ES"
        return country in self.countries

    def find(
        self,
        text: str,
        country: str | None = None,
        clinical: Callable[[str, int, int], bool] | None = None,
    ) -> list[Found]:
        """The values of this kind in `text` (a keyless value that fails the check: rejected
        when the kind records look-alikes, else left out); `clinical(text, start, end)`: the
        value is a clinical number (its unit after it, a code cue before it)."""
        found = []
        # a kind of some countries with no check of its own (record numbers after `expediente`,
        # `ficha`) is that country's wording: in another country's report its key means
        # something else (a Spanish `expediente de traslado` is an episode)
        wording_only = self.validator is None and bool(self.countries)
        if self.keyed is not None and not (
            wording_only and country is not None and country not in self.countries
        ):
            for m in self.keyed.finditer(text):
                start, end = _trim(text, m.start("value"), m.end("value"))
                checked = 1
                if self.validator is not None:
                    written = text[m.start("value") : end]
                    if not self.validator(written, country):
                        checked = 2
                    elif not self.shape_only:
                        checked = 0
                found.append(Found(start, end, True, m.start(), checked=checked))
        if self.keyless is not None and self.applies_keyless(country):
            for m in self.keyless.finditer(text):
                start, end = _trim(text, m.start("value"), m.end("value"))
                if self.clinical_guard and clinical is not None and clinical(text, start, end):
                    continue
                # checked with its leading `+` or `(`, which the span leaves out
                written = text[m.start("value") : end]
                if self.validator is None or self.validator(written, country):
                    checked = int(self.validator is None or self.shape_only)
                    found.append(Found(start, end, False, start, checked=checked))
                elif self.rejects:
                    found.append(Found(start, end, False, start, rejected=True))
        return [f for f in found if f.end > f.start]


def _word_regex(words_: Iterable[str], *, before: str, after: str) -> re.Pattern | None:
    alternatives = sorted({w.strip().lower() for w in words_ if w.strip()}, key=len, reverse=True)
    if not alternatives:
        return None
    return re.compile(
        before + "(?:" + "|".join(map(re.escape, alternatives)) + ")" + after, re.IGNORECASE
    )


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    # the gold standard leaves a leading `+` or `(` out: `+34 612...` is `34 612...`
    while start < end and (text[start] in _LEADING or text[start].isspace()):
        start += 1
    while end > start and (text[end - 1] in _TRAILING or text[end - 1].isspace()):
        end -= 1
    return start, end


@Language.factory(
    "meddocan_identifiers",
    default_config={
        "spans_key": SPANS_KEY,
        "rules_key": "rule_entities",
        "fields_key": "fields",
        "rejects_key": REJECTS_KEY,
        "country": None,
        "measure_units": words("measure_units"),
        "code_cues": words("code_cue_words"),
    },
    assigns=["doc.ents", "doc.spans"],
)
def make_identifiers(
    nlp: Language,
    name: str,
    *,
    spans_key: str,
    rules_key: str,
    fields_key: str,
    rejects_key: str,
    country: str | None,
    measure_units: list[str],
    code_cues: list[str],
) -> "Identifiers":
    return Identifiers(
        nlp,
        name,
        spans_key=spans_key,
        rules_key=rules_key,
        fields_key=fields_key,
        rejects_key=rejects_key,
        country=country,
        measure_units=measure_units,
        code_cues=code_cues,
    )


def check_country(country: str | None, where: str) -> str | None:
    """`country` in capitals when it is an ISO 3166 alpha-2 code or None; ValueError else."""
    if country is None:
        return None
    if not isinstance(country, str) or not COUNTRY.fullmatch(country.strip().upper()):
        raise ValueError(f"{where}: country {country!r} is not an ISO 3166 alpha-2 code")
    return country.strip().upper()


class Identifiers(PatternState):
    """Identifiers of `doc.text` after their keys, and without a key in the shapes that their
    check validates. `country` (ISO 3166 alpha-2 or None) is the documents' country when a
    document carries none (`doc._.country`); `measure_units` and `code_cues` (word lists,
    default `pipeline/data/es/measure_units.txt` and `code_cue_words.txt`): a keyless value of
    a kind with `clinical_guard` followed by a unit or after a cue is a clinical number."""

    check_patterns = staticmethod(validate_patterns)

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str = SPANS_KEY,
        rules_key: str = "rule_entities",
        fields_key: str = "fields",
        rejects_key: str = REJECTS_KEY,
        country: str | None = None,
        measure_units: list[str] | None = None,
        code_cues: list[str] | None = None,
    ):
        self.name = name
        self.spans_key = spans_key
        self.rules_key = rules_key
        self.fields_key = fields_key
        self.rejects_key = rejects_key
        self.country = check_country(country, f"component {name!r}")
        units = words("measure_units") if measure_units is None else measure_units
        cues = words("code_cue_words") if code_cues is None else code_cues
        self._unit_after = _word_regex(units, before=r"\s?", after=r"(?!\w)")
        self._cue_before = _word_regex(cues, before=r"(?<!\w)", after=r"(?!\w)[^\n\d]{0,12}$")
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

    def doc_country(self, doc: Doc) -> str | None:
        """The document's country: the component's `country` when one is set (an option
        overrides detection), else `doc._.country` where that extension is registered
        (meddocan_deid.country detects it from the text), else None."""
        if self.country is not None:
            return self.country
        if Doc.has_extension("country"):
            value = getattr(doc._, "country", None)
            if value:
                return check_country(value, f"component {self.name!r}: doc._.country")
        return self.country

    def clinical(self, text: str, start: int, end: int) -> bool:
        """The number at [start, end) is followed by a unit or preceded by a code cue."""
        if self._unit_after is not None and self._unit_after.match(text, end):
            return True
        line_start = text.rfind("\n", 0, start) + 1
        before = text[max(line_start, start - GUARD_WINDOW) : start]
        return self._cue_before is not None and self._cue_before.search(before) is not None

    def _found(self, doc: Doc) -> tuple[list[tuple], list[Span]]:
        country = self.doc_country(doc)
        found, rejected = [], []
        text = doc.text  # built from the tokens on each access
        for order, kind in enumerate(self._kinds):
            rank = 0 if country is not None and country in kind.countries else 1
            for f in kind.find(text, country, self.clinical):
                span = doc.char_span(f.start, f.end, label=kind.label, alignment_mode="expand")
                if span is None or not len(span):
                    continue
                span = Span(doc, span.start, span.end, label=kind.label, kb_id=kind.kind)
                if f.rejected:
                    rejected.append(span)
                else:
                    # keyed first, the longest, the document's country, a passed check, the
                    # longest key
                    found.append(
                        (not f.keyed, -(f.end - f.start), rank, f.checked, f.key_start, order, span)
                    )
        return found, rejected

    def candidates(self, doc: Doc) -> list[tuple[Span, bool]]:
        """Non-overlapping identifier spans (kind in `kb_id_`) and whether a key
        preceded each: keyed values first, then the longest, then a kind of the document's
        country, then a kind whose check passes (before one without a check, before one whose
        check fails), then the one whose key says more (starts earlier)."""
        return self._choose(self._found(doc)[0])

    @staticmethod
    def _choose(found: list[tuple]) -> list[tuple[Span, bool]]:
        found.sort(key=lambda f: f[:6])  # ties: the pattern listed first
        taken: set[int] = set()
        spans = []
        for keyless, *_, span in found:
            if taken.isdisjoint(range(span.start, span.end)):
                taken.update(range(span.start, span.end))
                spans.append((span, not keyless))
        return sorted(spans, key=lambda s: s[0].start)

    def _drop_inside(self, doc: Doc, rejects: list[Span]) -> None:
        """Take the rejected look-alikes out of the entities (the NER reads a CURP with a
        wrong check digit as a code): no key names them. What is left of an entity stays
        where it still looks like one (`_pieces`). A rule entity keeps its span (a header
        rule read it after its field key)."""
        inside = {i for s in rejects for i in range(s.start, s.end)}
        rules = {(r.start, r.end, r.label) for r in doc.spans.get(self.rules_key, [])}
        ents: list[Span] = []
        for ent in doc.ents:
            if (ent.start, ent.end, ent.label) in rules or inside.isdisjoint(
                range(ent.start, ent.end)
            ):
                ents.append(ent)
            else:
                ents += self._pieces(doc, ent, inside)
        doc.ents = ents

    def _pieces(self, doc: Doc, ent: Span, covered: set[int]) -> list[Span]:
        """What is left of `ent` around the tokens of `covered` that still looks like an
        entity: a word of 2+ letters or digits (`_sensible`), with a digit for a number label
        (`del`, `Marruecos):` are words)."""
        inside = covered.intersection(range(ent.start, ent.end))
        pieces = []
        for piece in ((ent.start, min(inside)), (max(inside) + 1, ent.end)):
            kept = self._sensible(doc, *piece) if piece[1] > piece[0] else None
            if (
                kept is not None
                and ent.label_.startswith(NUMBER_LABEL_PREFIXES)
                and not any(c.isdigit() for t in doc[kept[0] : kept[1]] for c in t.text)
            ):
                kept = None
            if kept is not None and covered.isdisjoint(range(*kept)):
                pieces.append(Span(doc, kept[0], kept[1], label=ent.label, kb_id=ent.kb_id))
        return pieces

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
        found, rejected = self._found(doc)
        candidates = self._choose(found)
        # a look-alike is rejected only where no kind reads an identifier (`1.234.567-2`
        # fails the RUT's check and passes the Uruguayan CI's)
        accepted = {i for *_, s in found for i in range(s.start, s.end)}
        rejects = sorted(
            {
                (s.start, s.end): s for s in rejected if accepted.isdisjoint(range(s.start, s.end))
            }.values(),
            key=lambda s: s.start,
        )
        doc.spans[self.rejects_key] = rejects
        if rejects:
            self._drop_inside(doc, rejects)
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
            if covered.isdisjoint(range(ent.start, ent.end)):
                ents.append(ent)
            else:
                ents += self._pieces(doc, ent, covered)
        doc.ents = sorted(ents, key=lambda e: e.start)
        return doc
