"""Known identifiers: what the hospital already knows of a patient (name, DNI, NHC from the
admission system), found wherever it occurs in the patient's reports.

`known_phi` is a mapping label -> list of strings, e.g.
`{"NOMBRE_SUJETO_ASISTENCIA": ["Ana Ruiz Gil"], "ID_SUJETO_ASISTENCIA": ["45873912K"]}`.
Matching is case- and accent-insensitive on a 1:1 folded copy of the text (one character
for one character, so offsets stay those of the original). Names (the NOMBRE_* and
FAMILIARES_* labels) are also found by their parts: every run of words that starts and
ends with a word of 3+ letters that is not a particle (`de`, `del`, `la`, `y`...), so
`Ruiz`, `Ana` and `Ruiz Gil` are found alone. Identifiers (ID_*, NUMERO_*, IDENTIF_*,
OTRO_NUMERO_IDENTIF) are matched with separators ignored: `45.873.912-K` matches
`45873912K`. Other labels are matched as whole strings.

Found mentions win over overlapping detected spans (`force_spans`, shared with the deny
list of a policy): a detected span is trimmed to what lies outside them, or dropped.
"""

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Optional

from ..constants import LABELS
from ..errors import KnownPhiError
from ..formats.encodings import decode_bytes
from ..labels import IDENTIFIER_LABELS
from ..lexicon import NAME_LABELS, casefold_per_char, tagged_words

Span = tuple[str, int, int]
KnownPhi = dict[str, list[str]]

# particles of Spanish (and Catalan, Galician) names: never searched alone
STOPWORDS = frozenset(tagged_words("particles", "known_name"))
MIN_PART = 3
ID_SEPARATORS = r"[\s.\-/]?"
MAX_VALUES = 200  # per label and record: the field is for a few known identifiers, not a dictionary


def is_name_label(label: str) -> bool:
    return label in NAME_LABELS


def is_id_label(label: str) -> bool:
    """A code (the label table's identifier column): matched with separators ignored."""
    return label in IDENTIFIER_LABELS


def _words_pattern(words: Sequence[str]) -> str:
    return r"[\s\-]+".join(re.escape(w) for w in words)


def name_terms(value: str) -> list[str]:
    """Patterns (on folded text) for a name: the whole name and every run of its words that
    starts and ends with a word of 3+ letters that is not a particle; longest first."""
    words = re.findall(r"[^\W\d_]+", casefold_per_char(value))
    content = [len(w) >= MIN_PART and w not in STOPWORDS for w in words]
    runs = {tuple(words)} if words else set()  # the whole name, whatever its parts
    for i in range(len(words)):
        if not content[i]:
            continue
        for j in range(i, len(words)):
            if content[j]:
                runs.add(tuple(words[i : j + 1]))
    return [_words_pattern(r) for r in sorted(runs, key=lambda r: (-sum(map(len, r)), r))]


def id_term(value: str) -> str | None:
    chars = [c for c in casefold_per_char(value) if c.isalnum()]
    if not chars:
        return None
    return ID_SEPARATORS.join(re.escape(c) for c in chars)


def literal_term(value: str) -> str | None:
    words = casefold_per_char(value).split()
    return _words_pattern(words) if words else None


def terms_for(label: str, value: str) -> list[str]:
    if is_name_label(label):
        return name_terms(value)
    term = id_term(value) if is_id_label(label) else literal_term(value)
    return [term] if term else []


def compile_terms(terms: Iterable[str]) -> Optional["re.Pattern"]:
    """One pattern for folded text, longest alternatives first, whole words only."""
    unique = sorted(set(terms), key=lambda t: (-len(t), t))
    if not unique:
        return None
    return re.compile(r"(?<![^\W_])(?:" + "|".join(unique) + r")(?![^\W_])")


def find_all(folded: str, pattern, label: str) -> list[Span]:
    return [(label, m.start(), m.end()) for m in pattern.finditer(folded) if m.end() > m.start()]


def find_known(text: str, known: Mapping[str, Sequence[str]] | None) -> list[Span]:
    """Every mention of the known values in `text`, as (label, start, end)."""
    if not known:
        return []
    folded = casefold_per_char(text)
    found: list[Span] = []
    for label, values in known.items():
        pattern = compile_terms(t for v in values for t in terms_for(label, v))
        if pattern is not None:
            found.extend(find_all(folded, pattern, label))
    return found


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The piece without separators at its ends, or None when nothing alphanumeric is left."""
    while start < end and not text[start].isalnum():
        start += 1
    while end > start and not text[end - 1].isalnum():
        end -= 1
    return (start, end) if start < end else None


def force_spans(
    text: str, spans: Iterable[Span], forced: Iterable[Span], keep_labels: Iterable[str] = ()
) -> list[Span]:
    """`spans` with the `forced` ones added and winning: among forced spans the earlier
    given wins (callers order them). A forced span inside a detected span of the same label,
    or strictly inside a larger detected span of another label (a surname inside a
    relative's full name or an e-mail address), is already covered and dropped, unless that
    span's label is in `keep_labels` (left in clear). A detected span that overlaps a forced
    one otherwise keeps only its pieces outside it (trimmed of separators, dropped when
    nothing alphanumeric is left); one of the same extent is relabelled."""
    spans = sorted(spans, key=lambda x: (x[1], x[2]))
    keep_labels = frozenset(keep_labels)
    chosen: list[Span] = []
    for label, s, e in forced:
        if s >= e or any(s < ce and cs < e for _l, cs, ce in chosen):
            continue
        if any(
            ds <= s
            and e <= de
            and (other == label or (other not in keep_labels and (ds, de) != (s, e)))
            for other, ds, de in spans
        ):
            continue
        chosen.append((label, s, e))
    out: list[Span] = list(chosen)
    for label, s, e in spans:
        pieces = [(s, e)]
        for _fl, fs, fe in chosen:
            nxt = []
            for ps, pe in pieces:
                if fe <= ps or pe <= fs:
                    nxt.append((ps, pe))
                    continue
                for a, b in ((ps, fs), (fe, pe)):
                    if a < b:
                        piece = _trim(text, a, b)
                        if piece:
                            nxt.append(piece)
            pieces = nxt
        out.extend((label, ps, pe) for ps, pe in pieces)
    return sorted(out, key=lambda x: (x[1], x[2]))


def add_known(
    text: str,
    spans: Iterable[Span],
    known: Mapping[str, Sequence[str]] | None,
    keep_labels: Iterable[str] = (),
) -> list[Span]:
    """`spans` with every mention of the known values added, winning over overlapping ones."""
    found = find_known(text, known)
    if not found:
        return sorted(spans, key=lambda x: (x[1], x[2]))
    # longest first, so that `Ana Ruiz Gil` wins over `Ruiz` from another value
    found.sort(key=lambda x: (-(x[2] - x[1]), x[1]))
    return force_spans(text, spans, found, keep_labels)


def validate_known_phi(value, where: str = "") -> KnownPhi:
    """The field checked: a mapping known label -> list of non-empty strings (a bare string
    is taken as a list of one). Raises KnownPhiError naming `where` and the problem."""
    where = f"{where}: " if where else ""
    if value is None:
        return {}
    if isinstance(value, str):  # a JSON string (e.g. a Spark column)
        try:
            value = json.loads(value)
        except ValueError:
            raise KnownPhiError(f"{where}'known_phi' is not valid JSON") from None
        if value is None:
            return {}
    if not isinstance(value, Mapping):
        raise KnownPhiError(f"{where}'known_phi' must be an object label -> list of strings")
    out: KnownPhi = {}
    for label, values in value.items():
        if label not in LABELS:
            raise KnownPhiError(
                f"{where}'known_phi' has an unknown label {str(label)[:60]!r} "
                f"(expected one of the MEDDOCAN labels, e.g. NOMBRE_SUJETO_ASISTENCIA)"
            )
        if isinstance(values, str):
            values = [values]
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
            raise KnownPhiError(f"{where}'known_phi' {label} must be a list of strings")
        if len(values) > MAX_VALUES:
            raise KnownPhiError(
                f"{where}'known_phi' {label} has {len(values)} values (at most {MAX_VALUES})"
            )
        kept = [v for v in values if v.strip()]
        if kept:
            out[label] = kept
    return out


def merge_known(*items: Mapping[str, Sequence[str]] | None) -> KnownPhi:
    """The union of several known_phi mappings (values de-duplicated, order kept)."""
    out: KnownPhi = {}
    for item in items:
        for label, values in (item or {}).items():
            bucket = out.setdefault(label, [])
            for v in values:
                if v not in bucket:
                    bucket.append(v)
    return out


def pool_by_patient(
    entries: Iterable[tuple[str | None, Mapping[str, Sequence[str]] | None]],
) -> dict[str, KnownPhi]:
    """patient id -> the union of the known_phi of all its reports (reports without a
    patient id are not pooled)."""
    pooled: dict[str, KnownPhi] = {}
    for patient, known in entries:
        if patient is not None and known:
            pooled[patient] = merge_known(pooled.get(patient), known)
    return pooled


def pooled_known_phi(path, encoding: str = "utf-8") -> dict[str, KnownPhi]:
    """A first pass over a JSONL file: patient id -> the known_phi of all its reports.
    Lines that are not valid (JSON, ids, known_phi) are skipped here; the main pass
    reports them."""
    pooled: dict[str, KnownPhi] = {}
    try:
        fh = open(path, "rb")
    except OSError:
        return pooled
    with fh:
        for raw in fh:
            try:
                if b"known_phi" not in raw:
                    continue
                line = decode_bytes(raw, encoding)[0]  # as the main pass reads it
                if '"known_phi"' not in line:
                    continue
                obj = json.loads(line)
                patient = obj.get("patient_id")
                if patient is None or isinstance(patient, (bool, dict, list, float)):
                    continue
                known = validate_known_phi(obj.get("known_phi"))
            except (ValueError, AttributeError):
                continue
            if known:
                pooled[str(patient)] = merge_known(pooled.get(str(patient)), known)
    return pooled


def record_known_phi(
    value, patient: str | None, pooled: Mapping[str, KnownPhi], where: str
) -> tuple[KnownPhi | None, str | None]:
    """(the known_phi a record uses: its own and its patient's, the problem or None)."""
    try:
        own = validate_known_phi(value, where)
    except KnownPhiError as err:
        return None, str(err)
    known = merge_known(own, pooled.get(patient) if patient is not None else None)
    return (known or None), None
