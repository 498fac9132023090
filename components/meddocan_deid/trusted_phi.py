"""Trusted-PHI propagation ("PHI de confianza").

A string labelled with confidence somewhere in a report (by the header rules, except
sex, or by the NER as HOSPITAL or INSTITUCION) and longer than `min_length` characters
is labelled, with the same label, at every other exact occurrence in the same report
that is still unlabelled and falls on token boundaries. State never crosses documents:
everything is computed from the Doc being processed.
"""

import re
from typing import List

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans


@Language.factory(
    "meddocan_trusted_phi",
    default_config={
        "rules_key": "rule_entities",
        "sections_key": "sections",
        "spans_key": "trusted_phi",
        "exclude_rule_labels": ["SEXO_SUJETO_ASISTENCIA"],
        "ner_labels": ["HOSPITAL", "INSTITUCION"],
        "min_length": 4,
    },
    assigns=["doc.ents", "doc.spans"],
)
class TrustedPHI:
    def __init__(self, nlp: Language, name: str, rules_key: str, sections_key: str, spans_key: str,
                 exclude_rule_labels: List[str], ner_labels: List[str], min_length: int):
        self.name = name
        self.rules_key = rules_key
        self.sections_key = sections_key
        self.spans_key = spans_key
        self.exclude_rule_labels = set(exclude_rule_labels)
        self.ner_labels = set(ner_labels)
        self.min_length = min_length

    def trusted(self, doc: Doc) -> dict:
        """Trusted strings of this document, mapped to their label."""
        found = {}
        headers = [s for s in doc.spans.get(self.sections_key, []) if s.label_ == "header"]
        header_end = headers[0].end if headers else 0
        for span in doc.spans.get(self.rules_key, []):
            # only the header rules are trusted: footer matches are regexes, not structure
            if span.end <= header_end and span.label_ not in self.exclude_rule_labels:
                found.setdefault(span.text, span.label_)
        for ent in doc.ents:
            if ent.label_ in self.ner_labels:
                found.setdefault(ent.text, ent.label_)
        return {text: label for text, label in found.items() if len(text) >= self.min_length}

    def __call__(self, doc: Doc) -> Doc:
        trusted = self.trusted(doc)
        if not trusted:
            doc.spans[self.spans_key] = []
            return doc
        taken = [False] * len(doc)
        for ent in doc.ents:
            for i in range(ent.start, ent.end):
                taken[i] = True
        added: List[Span] = []
        text = doc.text  # Doc.text is rebuilt from the tokens on every access: read it once
        # longest strings first, so "Rivera Bueno" wins over "Rivera"
        for string in sorted(trusted, key=len, reverse=True):
            for m in re.finditer(r"(?<!\w)" + re.escape(string) + r"(?!\w)", text):
                span = doc.char_span(m.start(), m.end(), label=trusted[string])
                if span is None or any(taken[span.start:span.end]):
                    continue
                for i in range(span.start, span.end):
                    taken[i] = True
                added.append(span)
        doc.spans[self.spans_key] = added
        if added:
            doc.ents = filter_spans(list(doc.ents) + added)
        return doc
