"""MEDDOCAN labels as Microsoft Presidio entities, and a score for each entity by its source.

The mapping is data (the label table, `meddocan_deid.labels`): `PRESIDIO_ENTITIES` (every
MEDDOCAN label -> its Presidio entity name; a label without a Presidio counterpart keeps its
own name) and `VALUE_ENTITIES` (labels whose value may earn a more precise name: a valid
DNI/NIF is ES_NIF, an IBAN IBAN_CODE...).
`presidio_entity(label, value)` applies both. `entity_sources(doc)` names the component behind
each of `doc.ents` from the pipeline's span groups, and `SOURCE_SCORES` scores each source.
The Presidio recognizer (`meddocan_deid.presidio`) and the service's Presidio answer share
them; docs/presidio.md has the tables. Needs no Presidio package.
"""

import bisect
import ipaddress
import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence

from stdnum import iban as std_iban
from stdnum.es import nie as std_nie
from stdnum.es import nif as std_nif

from . import LABELS, labels
from .pipeline.identifiers import CHECK_DIGIT_VALIDATORS, VALIDATORS

logger = logging.getLogger("meddocan_deid.presidio")

# label -> its Presidio entity name (data/labels.tsv: a label without a counterpart keeps its own)
PRESIDIO_ENTITIES: dict[str, str] = dict(labels.PRESIDIO)


def _compact(value: str) -> str:
    return re.sub(r"[\s.\-/]", "", value).upper()


def _is_ip(value: str) -> bool:
    try:
        ipaddress.ip_address(value.strip())
    except ValueError:
        return False
    return True


# Presidio name -> what a value must be to carry it
VALUE_CHECKS: dict[str, Callable[[str], bool]] = {
    "ES_NIE": lambda v: std_nie.is_valid(_compact(v)),
    "ES_NIF": lambda v: std_nif.is_valid(_compact(v)),  # a DNI with its letter, or a company's NIF
    "IBAN_CODE": lambda v: std_iban.is_valid(v),
    "IP_ADDRESS": _is_ip,
    # the guidelines put the patient's population group and sexual orientation under
    # ID_SUJETO_ASISTENCIA (P17.2-3) and a relative's age under FAMILIARES (P4.3)
    "NRP": lambda v: not any(c.isdigit() for c in v),
    "AGE": lambda v: any(c.isdigit() for c in v),
}
# label -> the names its value is checked for, in order (a NIE is also a valid NIF: NIE first;
# data/labels.tsv, presidio_by_value)
VALUE_ENTITIES: dict[str, tuple[str, ...]] = dict(labels.PRESIDIO_BY_VALUE)
# every Presidio name an entity can carry, then every name a request may use
PRESIDIO_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [*PRESIDIO_ENTITIES.values(), *(n for names in VALUE_ENTITIES.values() for n in names)]
    )
)
ENTITY_NAMES: tuple[str, ...] = tuple(dict.fromkeys([*LABELS, *PRESIDIO_NAMES]))
NAMINGS = ("presidio", "meddocan")
RECOGNIZER_NAME = "MeddocanRecognizer"  # the recognizer in results and explanations

# source -> score: how sure the component that found an entity is (docs/presidio.md)
SOURCE_SCORES: dict[str, float] = {
    "checked_identifier": 1.0,
    "known": 1.0,
    "identifier": 0.95,
    "field": 0.95,
    "rule": 0.85,
    "propagated": 0.8,
    "ner": 0.75,
    "fallback": 0.6,
    "number_words": 0.85,
    "code_shape": 0.5,
    "privacy_high": 0.4,
}
SOURCE_TEXTS: dict[str, str] = {
    "checked_identifier": "identifier pattern, check digit or letter verified",
    "known": "known identifier or deny list of the request",
    "identifier": "identifier pattern after its key or of a checked shape",
    "field": "value of a keyed field",
    "rule": "MEDDOCAN rule",
    "propagated": "another occurrence of a trusted PHI string",
    "ner": "NER (or an entity a post-NER component cut or built)",
    "fallback": "fallback rule where no other entity is",
    "number_words": "number in words in its context (age, date, keyed phone or record number)",
    "code_shape": "code no safe pattern explains",
    "privacy_high": "privacy level high addition",
}
# (span group of the shipped pipeline, source): an entity equal to one of a group's spans
# came from that component; earlier groups win (fields are copied into rule_entities)
SOURCE_GROUPS: tuple[tuple[str, str], ...] = (
    ("identifiers", "identifier"),
    ("fields", "field"),
    ("rule_entities", "rule"),
    ("trusted_phi", "propagated"),
    ("fallback_entities", "fallback"),
    ("number_words", "number_words"),
    ("code_shapes", "code_shape"),
    ("privacy_added", "privacy_high"),
)
# phi_rules pattern ids whose entity is the value after a key (`Nombre: ...`, `Tel: ...`): a
# rule entity right after such a key of its label, on the key's line, is a keyed field value
KEYED_RULES = ("header/line", "footer/number")
Found = tuple[str, int, int, str]  # label, start, end (characters), source


def presidio_entity(label: str, value: str) -> str:
    """The Presidio name of an entity labelled `label` whose text is `value`."""
    for name in VALUE_ENTITIES.get(label, ()):
        if VALUE_CHECKS[name](value):
            return name
    return PRESIDIO_ENTITIES[label]


def explanation_text(label: str, name: str, source: str) -> str:
    """The textual_explanation of an entity's analysis explanation."""
    return f"MEDDOCAN {label} ({name}): {SOURCE_TEXTS[source]}"


def unknown_names(names: Iterable[str]) -> list[str]:
    """The names that are neither a MEDDOCAN label nor a Presidio name of the mapping."""
    return [n for n in names if n not in ENTITY_NAMES]


def result_naming(requested: Sequence[str] | None, naming: str | None = None) -> str:
    """ "presidio" or "meddocan": `naming` when given, else MEDDOCAN labels when every
    requested entity is one, else Presidio names."""
    if naming is not None:
        if naming not in NAMINGS:
            raise ValueError(f"entity names: {naming!r} is not one of {NAMINGS}")
        return naming
    return "meddocan" if requested and all(n in LABELS for n in requested) else "presidio"


def wanted(label: str, name: str, requested: Iterable[str] | None) -> bool:
    """An entity is wanted when nothing is requested or its label or Presidio name is."""
    if not requested:
        return True
    requested = set(requested)
    return label in requested or name in requested


def entity_sources(doc) -> list[Found]:
    """(label, start_char, end_char, source) of each of `doc.ents`, by the span group of
    `SOURCE_GROUPS` that holds it at its offsets (label aside: a relabelled rule entity keeps
    its source); a rule entity after a `KEYED_RULES` key is a "field", an identifier whose
    check digit is right a "checked_identifier"; an entity no group holds is the NER's, or one
    a post-NER component cut or built: "ner"."""
    sources: dict[tuple[int, int], str] = {}
    for key, source in reversed(SOURCE_GROUPS):
        for span in doc.spans.get(key, []):
            sources[(span.start_char, span.end_char)] = source
    keys = sorted(
        (k.end_char, k.label_) for k in doc.spans.get("phi_rules", []) if k.id_ in KEYED_RULES
    )
    key_ends = [end for end, _ in keys]
    text = doc.text
    out = []
    for ent in doc.ents:
        source = sources.get((ent.start_char, ent.end_char), "ner")
        if source == "identifier" and any(VALIDATORS[c](ent.text) for c in CHECK_DIGIT_VALIDATORS):
            source = "checked_identifier"
        elif source == "rule":
            i = bisect.bisect_right(key_ends, ent.start_char) - 1
            if (
                i >= 0
                and keys[i][1] == ent.label_
                and "\n" not in text[keys[i][0] : ent.start_char]
            ):
                source = "field"
        out.append((ent.label_, ent.start_char, ent.end_char, source))
    return out


def source_scores(overrides: dict[str, float] | None = None) -> dict[str, float]:
    """`SOURCE_SCORES` with `overrides` (source -> score in [0, 1]) applied."""
    scores = dict(SOURCE_SCORES)
    for source, score in (overrides or {}).items():
        if source not in SOURCE_SCORES:
            raise ValueError(f"scores: unknown source {source!r} (known: {sorted(SOURCE_SCORES)})")
        if not 0 <= float(score) <= 1:
            raise ValueError(f"scores: {source}: {score} is not within [0, 1]")
        scores[source] = float(score)
    return scores


# Presidio analyzer's default; the same bits in `re` and in `regex`, whose flags Presidio uses
DEFAULT_REGEX_FLAGS = int(re.DOTALL | re.MULTILINE | re.IGNORECASE)


def allowed_mask(
    text: str,
    spans: Sequence[tuple[int, int]],
    allow_list: Sequence[str],
    match: str = "exact",
    flags: int = DEFAULT_REGEX_FLAGS,
    timeout: float = 1.0,
) -> list[bool]:
    """Whether each (start, end) of `text` is allowed, as Presidio's AnalyzerEngine decides:
    "exact", its text is one of `allow_list`; "regex", one of the regexes (empty ones aside)
    is found in it (`flags`: the `regex` module's). The regexes have `timeout` seconds in all;
    a span not checked in time is not allowed (it stays reported), as in Presidio."""
    if match == "exact":
        allow = set(allow_list)
        return [text[s:e] in allow for s, e in spans]
    if match != "regex":
        raise ValueError("allow_list_match must be 'exact' or 'regex'")
    import regex

    terms = [t for t in allow_list if t]
    if not terms:
        return [False] * len(spans)
    pattern = regex.compile("|".join(terms), flags=flags)
    deadline = time.monotonic() + timeout
    out, late = [], 0
    for s, e in spans:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            out.append(pattern.search(text[s:e], timeout=left) is not None)
        except TimeoutError:
            out.append(False)
            late += 1
    if late:
        logger.warning(
            "allow_list regexes ran out of time: %d entities not checked stay reported", late
        )
    return out
