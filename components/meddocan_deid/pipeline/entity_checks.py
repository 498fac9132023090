"""Check the NER's entities against what their label allows.

Reads `doc.ents`, the `any/veto` candidates of `doc.spans[candidates_key]`, the country
spans of `doc.spans[places_key]`, the `sections` spans and the rule entities (`rules_key`);
writes `doc.ents` only: a vetoed, misshapen or runaway NER entity is dropped, cut or
relabelled, an age right after a kinship word becomes the relative's (P4.3) and one with no
relative before it the patient's, and an institution right after a job or work word becomes
the employer (OTROS_SUJETO_ASISTENCIA, P28.1), a rule's too. The fallback entities of
rule_entities (`doc.spans[fallback_key]`: towns anywhere, streets in prose) are added where no
entity is. One lower-case word on a line written with capitals that is an inflected form of a
Spanish word (`aporta`, read as a town) is no name or place, nor is one word opening a sentence
that is a conjugated verb (`Nieva en la sierra`; a name the gazetteer knows stays), nor one
dictionary word read as a hospital on a line without case (`la sierra`), nor an article and
dictionary words not written capitalised read as a place (`en el campo`); a name or a place the
NER ran on into `, aporta` stops before it. Other rule entities, tokens and
span groups are never changed.
"""

import re
from collections.abc import Callable

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..deid.gazetteer import from_vocab
from ..labels import labels_with
from ..lexicon import NAME_LABELS, tagged_words, words
from .privacy import load_dictionary_words, load_inflected_forms, load_verb_forms
from .spans import rule_entity_keys, section_span

SENTENCE_END = {".", "!", "?", ":", ";", "¿", "¡"}
ARTICLES = {"el", "la", "los", "las"}
YEAR = re.compile(r"(?:1[89]|20)[0-9]{2}")
AGE = re.compile(r"\d{1,3}(?:[.,]\d)?\s*(?:años|año|a\.?|anys|any|anos|ano|meses|mes|semanas|días)")
POSTAL_CODE = re.compile(r"(?:[A-Z]{1,2}-?)?[0-9]{4,6}")
# label choice: a country's exact name with one of these NER labels (a place's, an
# organisation's, a date's, given by mistake) becomes PAIS; a person's or an employer's stays
COUNTRY_RELABEL = ("TERRITORIO", "FECHAS", "INSTITUCION", "HOSPITAL", "CALLE")


def _numeric(text: str) -> bool:
    return any(c.isdigit() for c in text) and not any(c.isalpha() for c in text.replace("E-", ""))


def _word_before(doc: Doc, start: int, window: int, stops, hit) -> bool:
    """`hit(token)` for one of the `window` words before token `start`, walking back no further
    than a stop token or a line break (spaces and punctuation are not words)."""
    i, words = start - 1, 0
    while i >= 0 and words < window:
        token = doc[i]
        if token.text in stops or "\n" in token.text:
            return False
        if not token.is_space and not token.is_punct:
            if hit(token):
                return True
            words += 1
        i -= 1
    return False


@Language.factory(
    "meddocan_entity_checks",
    default_config={
        "candidates_key": "phi_rules",
        "rules_key": "rule_entities",
        "sections_key": "sections",
        "veto_id": "any/veto",
        "max_tokens": 24,
        "places_key": "place_names",
        "country_id": "place/country",
        "country_label": "PAIS",
        "country_relabel": list(COUNTRY_RELABEL),
        # an age right after a relative is the relative's (guideline P4.3: `su hija, de 12
        # años`, `madre de 70 años`): FAMILIARES, however the NER labelled it
        "kinship_words": tagged_words("kinship_words", "relative_age"),
        "relative_age_window": 4,
        # an institution or company right after a job or one of these words is the employer of the
        # patient or a relative: OTROS_SUJETO_ASISTENCIA (guideline P28.1; `tornero en Talleres Gil
        # S.L.`, `profesora en el IES Joan Capó`); hospitals and health centres keep their label
        "employer_cues": words("employer_cues"),
        "employer_window": 6,
        # towns found anywhere and other fallback matches of
        # rule_entities: entities where no other is
        "fallback_key": "fallback_entities",
        # one lower-case word of a cased line, an inflected form of a Spanish word (`aporta`,
        # `refiere`), is that word, not a name or a place the NER read into it
        "common_word_labels": list(labels_with("place", "organisation", "name")),
    },
    assigns=["doc.ents"],
)
class EntityChecks:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        candidates_key: str,
        rules_key: str,
        sections_key: str,
        veto_id: str,
        max_tokens: int,
        places_key: str,
        country_id: str,
        country_label: str,
        country_relabel: list[str],
        kinship_words: list[str],
        relative_age_window: int,
        employer_cues: list[str],
        employer_window: int,
        fallback_key: str,
        common_word_labels: list[str],
        inflected: Callable[[str], bool] | None = None,
        verb_form: Callable[[str], bool] | None = None,
    ):
        """inflected: whether a lower-case word is an inflected Spanish form; verb_form: whether
        it is a conjugated verb (defaults: spacy-lookups-data's lemma table, loaded on first
        use)."""
        self.name = name
        self.candidates_key = candidates_key
        self.rules_key = rules_key
        self.sections_key = sections_key
        self.veto_id = veto_id
        self.max_tokens = max_tokens
        self.places_key = places_key
        self.country_id = country_id
        self.country_label = country_label
        self.country_relabel = set(country_relabel)
        self.kinship_words = set(kinship_words)
        self.relative_age_window = relative_age_window
        self.employer_cues, self.employer_window = set(employer_cues), employer_window
        self.fallback_key = fallback_key
        self.common_word_labels = set(common_word_labels)
        self._inflected = inflected
        self._verb_form = verb_form
        self._dictionary: frozenset[str] | None = None

    def __call__(self, doc: Doc) -> Doc:
        vetoed = [False] * len(doc)
        for cand in doc.spans.get(self.candidates_key, []):
            if cand.id_ == self.veto_id:
                for i in range(cand.start, cand.end):
                    vetoed[i] = True
        footer = section_span(doc, "footer", self.sections_key)
        footer_start = footer.start if footer is not None else len(doc)
        rules = rule_entity_keys(doc, self.rules_key)
        countries = {
            (s.start, s.end) for s in doc.spans.get(self.places_key, []) if s.id_ == self.country_id
        }
        ents: list[Span] = []
        changed = False
        jobs = {i for e in doc.ents if e.label_ == "PROFESION" for i in range(e.start, e.end)}
        for ent in doc.ents:
            if ent.label_ == "INSTITUCION" and self._after_cue(doc, ent, self.employer_cues, jobs):
                changed = True
                ents.append(Span(doc, ent.start, ent.end, label="OTROS_SUJETO_ASISTENCIA"))
                continue
            if (ent.start, ent.end, ent.label) in rules:
                ents.append(ent)
                continue
            if ent.label_ in self.common_word_labels and (
                self._common_word(doc, ent) or self._opening_verb(doc, ent)
            ):
                changed = True
                continue
            if ent.label_ in self.common_word_labels:
                cut = self._without_verb_tail(doc, ent)
                if cut is not ent:
                    changed = True
                    if cut is not None:
                        ents.append(cut)
                    continue
            if ent.label_ == "HOSPITAL" and self._caseless_common_noun(doc, ent):
                changed = True
                continue
            if ent.label_ == "TERRITORIO" and self._common_noun_place(doc, ent):
                changed = True
                continue
            # vetoes (pattern data, label `NO_PHI`) mark phrases the guidelines say are not
            # PHI ("médico de familia": a profession, not a relative)
            if all(vetoed[ent.start : ent.end]):
                changed = True
                continue
            # no gold entity is longer than 12 words: a longer one is the NER running on past a
            # sentence end; a street keeps its part up to its first house number
            if len(ent) > self.max_tokens:
                changed = True
                number = next((t.i for t in ent if any(c.isdigit() for c in t.text)), None)
                if (
                    ent.label_ == "CALLE"
                    and number is not None
                    and 0 < number - ent.start < self.max_tokens // 2
                ):
                    ents.append(Span(doc, ent.start, number + 1, label=ent.label))
                continue
            # exactly a country name is a PAIS whatever place-like label the NER gave it: in
            # train, country names are PAIS 698 times and TERRITORIO 4 times
            if (ent.start, ent.end) in countries and ent.label_ in self.country_relabel:
                changed = True
                ents.append(Span(doc, ent.start, ent.end, label=self.country_label))
                continue
            if ent.label_ == "EDAD_SUJETO_ASISTENCIA" and self._after_relative(doc, ent):
                changed = True
                ents.append(Span(doc, ent.start, ent.end, label="FAMILIARES_SUJETO_ASISTENCIA"))
                continue
            # and an age with no relative before it is the patient's (`D. Luis Gil, de 63 años`):
            # the NER trained with invented relatives in prose tends to call any age after a name
            # a relative's
            if (
                ent.label_ == "FAMILIARES_SUJETO_ASISTENCIA"
                and AGE.fullmatch(ent.text)
                and not self._after_relative(doc, ent, window=2 * self.relative_age_window)
            ):
                changed = True
                ents.append(Span(doc, ent.start, ent.end, label="EDAD_SUJETO_ASISTENCIA"))
                continue
            label = self._number_label(ent, in_footer=ent.start >= footer_start)
            if label != ent.label_:
                changed = True
                if label:
                    ents.append(Span(doc, ent.start, ent.end, label=label))
                continue
            ents.append(ent)
        # a town or street the NER and the other rules left in clear, wherever it stands, unless one
        # of its words names a person in this report (`Olmedo Rivas`:
        # trusted_phi carries the name on)
        taken = set(i for e in ents for i in range(e.start, e.end))
        # (capitalised words only: `de`, `la` in `María de la Fuente` name no one)
        person_words = {
            t.lower_ for e in ents if e.label_ in NAME_LABELS for t in e if t.text[:1].isupper()
        }
        for span in doc.spans.get(self.fallback_key, []):
            if not any(i in taken or vetoed[i] for i in range(span.start, span.end)) and not any(
                t.lower_ in person_words for t in span if t.text[:1].isupper()
            ):
                changed = True
                ents.append(span)
        if changed:
            doc.ents = sorted(ents, key=lambda e: e.start)
        return doc

    def _common_word(self, doc: Doc, ent: Span) -> bool:
        """One lower-case word, on a line written with capitals (a text typed in lower case
        keeps its names), that is an inflected form of a Spanish word: `aporta`, `refiere`."""
        token = ent[0]
        if len(ent) != 1 or not token.is_alpha or not token.is_lower:
            return False
        text = doc.text
        line_start = text.rfind("\n", 0, ent.start_char) + 1
        line_end = text.find("\n", ent.end_char)
        if not any(
            c.isupper() for c in text[line_start : line_end if line_end >= 0 else len(text)]
        ):
            return False
        if self._inflected is None:
            self._inflected = load_inflected_forms()
        return self._inflected(token.text)

    def _is_verb_form(self, word: str) -> bool:
        if self._verb_form is None:
            self._verb_form = load_verb_forms()
        return self._verb_form(word)

    def _opening_verb(self, doc: Doc, ent: Span) -> bool:
        """One word opening a sentence, in any case, that is a conjugated Spanish verb before a
        word in lower case (`Nieva en la sierra`): that verb, not a town; a name only where the
        gazetteer knows no such name (`Amparo refiere` keeps its name)."""
        token = ent[0]
        if len(ent) != 1 or not token.is_alpha:
            return False
        i = token.i
        opens = i == 0 or doc[i - 1].text in SENTENCE_END or "\n" in doc[i - 1].text
        following = next((t for t in doc[i + 1 :] if not t.is_space), None)
        if not opens or following is None or not following.is_alpha:
            return False
        if following.text[:1].isupper() and not following.is_upper:
            return False  # a capitalised word after it: a name or a place of two words
        if not self._is_verb_form(token.lower_):
            return False
        return not (ent.label_ in NAME_LABELS and self._known_name(doc, token.text))

    @staticmethod
    def _known_name(doc: Doc, word: str) -> bool:
        """A first name or a surname of the gazetteer (`Pablo`, a verb form too); any word
        when the pipeline carries no gazetteer."""
        gaz = from_vocab(doc.vocab)
        return gaz is None or any(gaz.contains(kind, word) for kind in ("first_names", "surnames"))

    def _without_verb_tail(self, doc: Doc, ent: Span) -> Span | None:
        """`Ciudad, aporta`, `Ciudad y aporta`: a name or a place the NER ran on past a comma or
        `y` into a conjugated verb stops before them; the entity itself when it does not."""
        last = ent[-1]
        if (
            len(ent) < 3
            or not last.is_alpha
            or last.is_title
            or ent[-2].text not in {",", "y", "Y"}
        ):
            return ent  # (a capitalised word after `y` is a second name: `Ana y Pablo`)
        if not self._is_verb_form(last.lower_) or (
            ent.label_ in NAME_LABELS and self._known_name(doc, last.text)
        ):
            return ent
        end = ent.end - 2
        return Span(doc, ent.start, end, label=ent.label) if end > ent.start else None

    def _caseless_common_noun(self, doc: Doc, ent: Span) -> bool:
        """One dictionary word read as a hospital on a line without case (`la sierra`): no
        hospital is named by one common word."""
        if len(ent) != 1 or not ent[0].is_alpha:
            return False
        text = doc.text
        line_start = text.rfind("\n", 0, ent.start_char) + 1
        line_end = text.find("\n", ent.end_char)
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        if any(c.isupper() for c in line) and any(c.islower() for c in line):
            return False
        if self._dictionary is None:
            self._dictionary = load_dictionary_words()
        return ent[0].lower_ in self._dictionary

    def _common_noun_place(self, doc: Doc, ent: Span) -> bool:
        """An article and one or two dictionary words, not written capitalised, read as a place
        (`trabaja en el campo`, `vive en el pueblo`): the country or a village, no named place,
        unless the gazetteer knows the whole phrase as a town or territory (`el ejido`). The
        words count as not capitalised when they are lower case, or on a line in capitals."""
        if not 2 <= len(ent) <= 3 or ent[0].lower_ not in ARTICLES:
            return False
        text = doc.text
        line_start = text.rfind("\n", 0, ent.start_char) + 1
        line_end = text.find("\n", ent.end_char)
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        caps_line = not any(c.islower() for c in line)
        if not all(t.is_alpha and (t.is_lower or caps_line) for t in ent):
            return False
        if self._dictionary is None:
            self._dictionary = load_dictionary_words()
        if not all(t.lower_ in self._dictionary for t in ent[1:]):
            return False
        gaz = from_vocab(doc.vocab)
        phrase = ent.text.lower()
        return gaz is not None and not any(
            gaz.contains(kind, phrase) for kind in ("towns", "territories")
        )

    def _after_cue(self, doc: Doc, ent: Span, cues, jobs=frozenset()) -> bool:
        """A cue word or a job (token of a PROFESION entity) within `employer_window` words
        before the entity, in its sentence part: `tornero en Talleres Gil S.L.`, `trabaja en el
        SEPE`."""
        return _word_before(
            doc,
            ent.start,
            self.employer_window,
            {".", ";", ":", "(", ")"},
            lambda t: t.lower_ in cues or t.i in jobs,
        )

    def _after_relative(self, doc: Doc, ent: Span, window: int = 0) -> bool:
        """A kinship word within `window` words (default `relative_age_window`) before the age,
        in its sentence part (no `.` or `;` in between): `su hija, de
        12 años`, `madre de 70 años`."""
        return _word_before(
            doc,
            ent.start,
            window or self.relative_age_window,
            {".", ";", ":"},
            lambda t: t.lower_ in self.kinship_words,
        )

    @staticmethod
    def _number_label(ent: Span, in_footer: bool) -> str:
        """The label a purely numeric entity may have: its own, FECHAS, or "" (not PHI).
        A TERRITORIO number is a postal code (4 to 6 digits) or, when it reads as a year
        outside the footer, a date; a FECHAS number is a year or a day (two digits at most); a
        phone number has at least 6 digits, and a 5-digit one is a postal code. Lab values are
        none of these."""
        text = ent.text
        if not _numeric(text):
            return ent.label_
        compact = text.replace(" ", "")
        if ent.label_ == "NUMERO_TELEFONO":
            digits = sum(c.isdigit() for c in compact)
            if digits >= 6:
                return ent.label_
            return "TERRITORIO" if compact.isdigit() and len(compact) == 5 else ""
        if ent.label_ == "TERRITORIO":
            if YEAR.fullmatch(compact) and not in_footer:
                return "FECHAS"
            return ent.label_ if POSTAL_CODE.fullmatch(compact) else ""
        # a FECHAS number is a date only as a year; other dates have separators
        if ent.label_ == "FECHAS" and compact.isdigit():
            return ent.label_ if YEAR.fullmatch(compact) or len(compact) <= 2 else ""
        return ent.label_
