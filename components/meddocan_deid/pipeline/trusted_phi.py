"""Trusted-PHI propagation ("PHI de confianza").

Reads `doc.ents`, the header rule entities (`doc.spans[rules_key]`), the keyed field
values of any section (`doc.spans[fields_key]`) and the `sections` spans; writes `doc.ents`
and the propagated spans to `doc.spans[spans_key]`: a trusted string labels its other
unlabelled occurrences (in a Basque line, with a case suffix too: `Mirenen`), and a place's
acronym takes its label. Never changes rule entities or tokens, and keeps no state from one
document to the next.
"""

import re

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from ..lexicon import NAME_LABELS, lookup_key, words
from .passage_words import suffixed_names, token_languages
from .spans import TITLES, rule_entity_keys, section_span

# a short name in capitals: `CHULU`, `IAS-CO`, `INCOSUR`
ACRONYM = re.compile(r"^[A-ZÁÉÍÓÚÑ][A-ZÁÉÍÓÚÑ0-9-]{1,11}$")
TITLE_WORDS = {t.rstrip(".") for t in TITLES}
# label choice: the labels whose names reports follow with a short name in parentheses
# (`Hospital ... (HUCA)`), whose acronyms are then trusted too
PLACE_LABELS = {"HOSPITAL", "INSTITUCION"}
# label choice: the NER labels that carry to a name's other occurrences in the report: a
# hospital's, an institution's and a relative's (the gold labels a relative the same way wherever
# it recurs in a report: in train, of 256 occurrences of gold relative strings, 239 have the
# label, 6 none)
CARRIED_NER_LABELS = ("HOSPITAL", "INSTITUCION", "FAMILIARES_SUJETO_ASISTENCIA")


@Language.factory(
    "meddocan_trusted_phi",
    default_config={
        "rules_key": "rule_entities",
        "fields_key": "fields",
        "sections_key": "sections",
        "spans_key": "trusted_phi",
        "exclude_rule_labels": ["SEXO_SUJETO_ASISTENCIA"],
        # NER labels that carry to a name's other occurrences in the report
        "ner_labels": list(CARRIED_NER_LABELS),
        "min_length": 4,
        # the parts of a trusted name found alone: labels and shortest part
        "name_labels": list(NAME_LABELS),
        "min_part_length": 4,
        "part_stop_words": words("name_part_stop_words"),
        # first words of a hospital's or institution's name, for acronyms after one
        "place_words": words("place_words"),
    },
    assigns=["doc.ents", "doc.spans"],
)
class TrustedPHI:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        rules_key: str,
        sections_key: str,
        spans_key: str,
        fields_key: str,
        exclude_rule_labels: list[str],
        ner_labels: list[str],
        min_length: int,
        place_words: list[str],
        name_labels: list[str],
        min_part_length: int,
        part_stop_words: list[str],
    ):
        self.name = name
        self.rules_key = rules_key
        self.fields_key = fields_key
        self.sections_key = sections_key
        self.spans_key = spans_key
        self.exclude_rule_labels = set(exclude_rule_labels)
        self.ner_labels = set(ner_labels)
        self.acronym_labels = self.ner_labels & PLACE_LABELS
        self.min_length = min_length
        self.name_labels = set(name_labels)
        self.min_part_length = min_part_length
        self.part_stop_words = set(part_stop_words)
        self.place_words = set(place_words)

    def trusted(self, doc: Doc) -> dict:
        """Trusted strings of this document, mapped to their label: labelled with confidence
        (by the header rules, except `exclude_rule_labels`, or by the NER as one of
        `ner_labels`) and at least `min_length` characters long."""
        found: dict[str, str] = {}
        header = section_span(doc, "header", self.sections_key)
        header_end = header.end if header is not None else 0
        for span in doc.spans.get(self.rules_key, []):
            # only the header rules are trusted: footer matches are regexes, not structure
            if span.end <= header_end and span.label_ not in self.exclude_rule_labels:
                found.setdefault(span.text, span.label_)
        # a keyed value (`Paciente: ...`) is structure too, wherever the layout puts it
        for span in doc.spans.get(self.fields_key, []):
            if span.label_ not in self.exclude_rule_labels:
                found.setdefault(span.text, span.label_)
        for ent in doc.ents:
            if ent.label_ in self.ner_labels:
                found.setdefault(ent.text, ent.label_)
        return {text: label for text, label in found.items() if len(text) >= self.min_length}

    def short_names(self, doc: Doc) -> None:
        """`Complejo Hospitalario de Lugo (CHULU)`: an acronym in parentheses right after a
        hospital or institution is its short name and takes its label (in train and dev the
        gold gives such an acronym the place's label 4 times out of 5). Only after a name
        that starts with a place word and with the acronym's first letter: the NER's own
        false places (`Colitis Ulcerosa (CU)`) must not spread."""
        rules = rule_entity_keys(doc, self.rules_key)
        ents = list(doc.ents)
        changed = False
        for ent in list(ents):
            if (
                ent.label_ not in self.acronym_labels
                or ent.end >= len(doc)
                or doc[ent.end].text != "("
            ):
                continue
            close = next(
                (i for i in range(ent.end + 2, min(ent.end + 5, len(doc))) if doc[i].text == ")"),
                None,
            )
            acronym = doc[ent.end + 1 : close].text if close is not None else ""
            # the place must read as one (`Complejo ...`, not `Colitis Ulcerosa (CU)`) and its
            # short name start with its first letter (`Servicio ... (CSM)` is another body's)
            if (
                close is None
                or not ACRONYM.match(acronym)
                or ent[0].lower_ not in self.place_words
                or acronym[0] != ent.text[0]
            ):
                continue
            inside = [e for e in ents if e.start < close and ent.end + 1 < e.end]
            if any(
                (e.start, e.end, e.label) in rules
                or e.label == ent.label
                or e.start < ent.end + 1
                or e.end > close
                for e in inside
            ):
                continue
            ents = [e for e in ents if e not in inside] + [
                Span(doc, ent.end + 1, close, label=ent.label)
            ]
            changed = True
        if changed:
            doc.ents = sorted(ents, key=lambda e: e.start)

    @staticmethod
    def _in_other_name(doc: Doc, span: Span) -> bool:
        """A name part next to another capitalised word belongs to another name (`Olmedo
        Rivasa`); a title before it (`Sra. Ruiz`) does not count."""
        after = doc[span.end] if span.end < len(doc) else None
        before = doc[span.start - 1] if span.start > 0 else None
        if after is not None and not after.is_space and after.text[:1].isupper():
            return True
        return (
            before is not None
            and not before.is_space
            and before.text[:1].isupper()
            and before.lower_.rstrip(".") not in TITLE_WORDS
        )

    def __call__(self, doc: Doc) -> Doc:
        # a short name first, so that it is trusted too; then every other exact occurrence
        # of a trusted string that is still unlabelled and falls on token boundaries
        self.short_names(doc)
        trusted = self.trusted(doc)
        if not trusted:
            doc.spans[self.spans_key] = []
            return doc
        taken = [False] * len(doc)
        for ent in doc.ents:
            for i in range(ent.start, ent.end):
                taken[i] = True
        added: list[Span] = []
        text = doc.text  # Doc.text is rebuilt from the tokens on every access: read it once
        # longest strings first, so "Rivas Buendía" wins over "Rivas"
        for string in sorted(trusted, key=len, reverse=True):
            for m in re.finditer(r"(?<!\w)" + re.escape(string) + r"(?!\w)", text):
                span = doc.char_span(m.start(), m.end(), label=trusted[string])
                if span is None or any(taken[span.start : span.end]):
                    continue
                for i in range(span.start, span.end):
                    taken[i] = True
                added.append(span)
        # the parts of a trusted name (`Ana Ruiz Gil` -> `Ruiz`), as DEDUCE does with known
        # patient names: `la Sra. Ruiz` later in the report is the same person
        known_words = {lookup_key(s): label for s, label in trusted.items() if " " not in s}
        for string, label in trusted.items():
            if label not in self.name_labels:
                continue
            for part in re.split(r"[\s-]+", string):
                if (
                    len(part) < self.min_part_length
                    or not part[0].isupper()
                    or part.lower() in self.part_stop_words
                ):
                    continue
                known_words.setdefault(lookup_key(part), label)
                for m in re.finditer(r"(?<![\w.@])" + re.escape(part) + r"(?![\w@])", text):
                    span = doc.char_span(m.start(), m.end(), label=label)
                    if (
                        span is None
                        or any(taken[span.start : span.end])
                        or self._in_other_name(doc, span)
                    ):
                        continue
                    for i in range(span.start, span.end):
                        taken[i] = True
                    added.append(span)
        # in a Basque line, a trusted word or name part with a case suffix (`Mirenen`,
        # `Osakidetzako`): the whole word, as a mention never cuts one
        langs = token_languages(doc)
        if "eu" in langs:
            for span in suffixed_names(doc, langs, known_words, taken):
                taken[span.start] = True
                added.append(span)
        doc.spans[self.spans_key] = added
        if added:
            doc.ents = filter_spans(list(doc.ents) + added)
        return doc
