"""Span helpers shared by the rule and post-NER components.

Reads tokens and `doc.spans` (the `sections` and rule-entity groups); writes nothing:
pure functions that return token offsets or spans, never changing the `Doc`. TITLES (the
titles before a name, default of more than one component's `titles` setting) is re-exported
from its home, meddocan_deid.lexicon.
"""

from collections.abc import Collection

from spacy.tokens import Doc, Span

from ..lexicon import TITLES  # noqa: F401  (re-exported)
from .sections import SECTIONS_KEY

EDGE_PUNCT = {".", ",", ";", ":", "-", "(", ")", "/", '"', "'"}
STREET_NUMBER_TAIL = {"-", ",", "º", "ª", "bis"}


def is_line_break(token) -> bool:
    return token.is_space and ("\n" in token.text or "\r" in token.text)


def has_digit(token) -> bool:
    return any(c.isdigit() for c in token.text)


def strip_edges(doc: Doc, start: int, end: int, titles: Collection[str] = ()) -> tuple[int, int]:
    """[start, end) without blanks and EDGE_PUNCT at both ends (and without leading
    `titles`, lower-cased words); an empty range (start == end) when nothing is left."""
    while start < end and (
        doc[start].is_space or doc[start].text in EDGE_PUNCT or doc[start].lower_ in titles
    ):
        start += 1
    while end > start and (doc[end - 1].is_space or doc[end - 1].text in EDGE_PUNCT):
        end -= 1
    return start, end


def rule_entity_keys(doc: Doc, spans_key: str) -> set[tuple[int, int, int]]:
    """(start, end, label) of the rule entities, which the post-NER components leave alone."""
    return {(s.start, s.end, s.label) for s in doc.spans.get(spans_key, [])}


def section_span(doc: Doc, label: str, spans_key: str = SECTIONS_KEY) -> Span | None:
    """The first section span labelled `label` ("header", "body", "footer"), or None."""
    return next((s for s in doc.spans.get(spans_key, []) if s.label_ == label), None)


def street_end(doc: Doc, head: Span, limit: int) -> int | None:
    """End of the street that starts at a street head (`C/`, `Avda.`): up to the first house
    number or `s/n`, on the head's line, within 12 tokens and before `limit`; None without one."""
    i, stop = head.end, min(limit, head.end + 12)
    while i < stop and not is_line_break(doc[i]):
        tok = doc[i]
        # `s/n` (no number) is tokenized `s`, `/`, `n`
        if (
            tok.lower_ == "s"
            and i + 2 < limit
            and doc[i + 1].text == "/"
            and doc[i + 2].lower_ == "n"
        ):
            return i + 3
        if tok.lower_ in {"s/n", "sn"} or has_digit(tok):
            end = i + 1
            # `5-7, 2º dcha` and `28-1º` stay with the number
            while (
                end + 1 < limit
                and doc[end].text in STREET_NUMBER_TAIL
                and has_digit(doc[end + 1])
                and not (len(doc[end + 1].text) == 5 and doc[end + 1].is_digit)
            ):
                end += 2
            return end
        if tok.like_email:
            break
        i += 1
    return None


def caseless_line(text: str, start: int, end: int) -> bool:
    """The line holding [start, end) has letters and not one capital: typed in lower case."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    line = text[a : b if b != -1 else len(text)]
    return any(c.isalpha() for c in line) and not any(c.isupper() for c in line)


def capitals_line(text: str, start: int, end: int) -> bool:
    """The line holding [start, end) has letters and not one lower-case letter: typed in capitals,
    where a capital says nothing of a name (`MEDICO DE GUARDIA`, `FIRMA Y SELLO`)."""
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    line = text[a : b if b != -1 else len(text)]
    return any(c.isalpha() for c in line) and not any(c.islower() for c in line)


def merged_entities(
    doc: Doc, found: list[Span], protected: set[tuple[int, int, int]], replace: bool
) -> list[Span]:
    """`doc.ents` with `found` added (longest first): a span that an entity of its label
    contains, or that overlaps a protected (rule) entity, is left out; otherwise it replaces
    the entities it overlaps when `replace`, else it only fills a gap. Returns the new list."""
    ents = list(doc.ents)
    for span in sorted(found, key=lambda s: (s.start - s.end, s.start)):
        overlapping = [e for e in ents if e.start < span.end and span.start < e.end]
        if any(
            e.label == span.label and e.start <= span.start and span.end <= e.end
            for e in overlapping
        ):
            continue
        if any((e.start, e.end, e.label) in protected for e in overlapping):
            continue
        if overlapping and not replace:
            continue
        ents = [e for e in ents if e not in overlapping] + [span]
    return sorted(ents, key=lambda e: e.start)
