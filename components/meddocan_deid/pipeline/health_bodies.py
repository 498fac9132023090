"""Health institutions and centres of the Spanish-speaking countries of the Americas.

Reads `doc.text`, `doc.ents` and the rule entities (`doc.spans[rules_key]`); writes
`doc.spans[spans_key]` and `doc.ents`. Finds, case- and accent-blind, the health systems,
social-security institutes, insurers, programmes and ministries of `country_data.institutions`
(INSTITUCION: `IMSS`, `Instituto Mexicano del Seguro Social`, `Fonasa`, `Nueva EPS`), and the
centres named the local way after a head of `country_data.centre_heads` (CENTRO_SALUD or
HOSPITAL: `UMF No. 12`, `HGZ No. 32`, `CESFAM Cordillera`, `CAPS 15`, `Policlínico Docente
Plaza`): the head with its number or the name after it. A head that names no Spanish centre
(`UMF`, `CESFAM`, `EBAIS`) is read in every report, the others (`policlínico`, `posta`,
`ambulatorio`) only in reports of their countries (meddocan_deid.country). An acronym in lower
case counts only in a report written in lower case, and not when it is a Spanish word. The
spans replace the entities they overlap, except rule entities and a longer entity of the same
label. Never touches tokens or other span groups.
"""

import re
from bisect import bisect_left
from functools import cache

from spacy.attrs import IDX
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..country import country_of
from ..country_data import SPAIN, centre_heads, institution_countries
from ..lexicon import casefold_per_char, words
from .spans import merged_entities, rule_entity_keys

_NUMBER = re.compile(r"\s*(?:(?:no\.?|n\.?\s?[°o]\.?|num\.?|numero|#)\s*)?(\d+)(?![\w/])")
# `y` ends a centre's name (`CESFAM Sur y CESFAM Norte`); a title does not (`CESFAM Dr. X`)
_TITLES = frozenset(words("title_links"))
_LINKS = frozenset(words("place_links")) - {"y"} | _TITLES


@cache
def _institution_pattern() -> re.Pattern:
    names = sorted(institution_countries(), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w-])")


@Language.factory(
    "meddocan_health_bodies",
    default_config={
        "spans_key": "health_bodies",
        "rules_key": "rule_entities",
        "institution_label": "INSTITUCION",
        # name words of a centre after its head, at most
        "max_name_words": 5,
        # lower-case words that end a centre's name in a report in lower case
        "stop_words": words("health_body_stop_words"),
    },
    assigns=["doc.ents", "doc.spans"],
)
class HealthBodies:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str,
        rules_key: str,
        institution_label: str,
        max_name_words: int,
        stop_words: list[str],
    ):
        self.name = name
        self.spans_key = spans_key
        self.rules_key = rules_key
        self.institution_label = institution_label
        self.max_name_words = max_name_words
        self.stop_words = {w.lower() for w in stop_words}

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text
        folded = casefold_per_char(text)
        lower_case = not any(c.isupper() for c in text)
        found: list[Span] = []
        for m in _institution_pattern().finditer(folded):
            written = text[m.start() : m.end()]
            spellings = [
                n
                for inst in institution_countries()[m.group()]
                for n in inst.names
                if casefold_per_char(n) == m.group()
            ]
            # an acronym only (`SIS`, not `Fonasa`, which Chile writes so)
            alias_upper = all(n.replace(" ", "").replace("-", "").isupper() for n in spellings)
            if alias_upper and not written.isupper() and not lower_case:
                continue  # `dif`, `sis` in a report that writes acronyms in capitals
            if written.islower() and " " not in written and written in self.stop_words:
                continue
            span = doc.char_span(m.start(), m.end(), label=self.institution_label)
            if span is not None:
                found.append(span)
        taken = [(s.start_char, s.end_char) for s in found]
        country = None
        heads = []
        for head in centre_heads():
            if not head.anywhere:
                country = country or country_of(text)
                if country == SPAIN or country not in head.countries:
                    continue
            heads += [(m, head) for m in head.pattern.finditer(folded)]
        # a name ends where another centre's head starts (`CESFAM Sur y CESFAM Norte`)
        starts = [(m.start(), m.start() + 1) for m, _head in heads]
        for m, head in sorted(heads, key=lambda mh: mh[0].start()):
            span = self._centre(doc, text, m, head, taken + starts, lower_case)
            if span is not None:
                found.append(span)
                taken.append((span.start_char, span.end_char))
        doc.spans[self.spans_key] = found
        doc.ents = merged_entities(doc, found, rule_entity_keys(doc, self.rules_key), True)
        return doc

    def _centre(self, doc, text, m, head, taken, lower_case) -> Span | None:
        # `text` is `doc.text`, which spaCy builds anew from the tokens on each access
        end = m.end()
        number = _NUMBER.match(casefold_per_char(text[end : end + 20]))
        if number and head.follows in ("number", "either"):
            end += number.end()
        elif head.follows in ("name", "either"):
            end = self._name_end(doc, end, taken, lower_case)
        if end == m.end():
            return None  # a head alone is a kind of centre, not a centre
        span = doc.char_span(m.start(), end, label=head.label, alignment_mode="contract")
        if span is None or any(
            s < span.end_char and span.start_char < e and s != m.start() for s, e in taken
        ):
            return None
        return span

    def _name_end(self, doc: Doc, start_char: int, taken, lower_case: bool) -> int:
        """The end of the name words after a head: capitalised words (any word not in
        `stop_words` in a report in lower case), with `de`, `la`, `Dr.`... inside."""
        # the first token at or after start_char (token offsets ascend)
        first = bisect_left(doc.to_array(IDX), start_char)
        if first == len(doc):
            return start_char
        end, names, i = start_char, 0, first
        while i < len(doc) and names < self.max_name_words:
            t = doc[i]
            if t.is_space or any(s <= t.idx < e for s, e in taken):
                break
            low = t.lower_.rstrip(".")
            after_title = i > 0 and doc[i - 1].lower_ in _TITLES
            if low in _LINKS or (t.text == "." and after_title):  # `Dr. Ramón`, not `CESFAM. La`
                i += 1
                continue
            if not t.is_alpha or not (
                t.is_title or t.is_upper or (lower_case and low not in self.stop_words)
            ):
                break
            names += 1
            end = t.idx + len(t.text)
            i += 1
        return end
