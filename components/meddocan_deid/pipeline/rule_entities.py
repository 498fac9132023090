"""Turn the rule matcher's candidates into PHI entities, each within its own section, and
add the jobs next to a cue (PROFESION) and the companies before a legal suffix.

Reads the `phi_rules` candidates (`doc.spans[candidates_key]`) and the `sections` spans;
writes the rule entities to `doc.spans[spans_key]` and, unless `annotate_ents` is false, to
`doc.ents`, where they replace the entities they overlap; towns found anywhere and the
`any/fallback` matches go to `doc.spans[fallback_key]` only (entity_checks adds them where no
other entity is). Never touches tokens, sections or the candidates; each pattern id
`<section>/<kind>` (listed below) says where a rule applies, and its kind names the handler
(`RULE_KINDS`, filled by `@rule_kind`) that turns the match into entities.
"""

import re
import unicodedata
from collections.abc import Callable, Collection, Sequence
from collections.abc import Set as AbstractSet
from typing import NamedTuple

from spacy.language import Language
from spacy.pipeline.span_ruler import prioritize_new_ents_filter
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from ..deid.gazetteer import Gazetteer, from_vocab
from ..lexicon import lookup_key, tagged_words, words
from .passage_words import relatives, suffixed_places, token_languages, weekdays
from .privacy import load_dictionary_words, load_log_probs, load_verb_forms
from .sections import SECTIONS_KEY
from .serialize import SerializedState
from .spans import TITLES, has_digit, is_line_break, street_end, strip_edges

SPLIT_PUNCT = {",", "/", "(", ")", ";"}
SENTENCE_END = {".", "!", "?", ":", ";"}
# lower-case words inside a town's name, in every language (pipeline/data/<lang>/)
TOWN_LINKS = set(words("town_links"))
SPACED_SPLIT_PUNCT = {"-", "."}  # `Getafe - Madrid`, `Monterrey. Nuevo León`; not `Vitoria-Gasteiz`
NUMBER_SEPARATORS = {"-", ".", "(", ")", "/"}
# Pattern ids `<section>/<kind>`. In a section: `header/line` (a header key: the entity is
# the value after it, up to the end of the line or the next key), `footer/number` (a phone
# or fax key: the entity is the digits after it), `footer/street` (a street head: the
# street up to its number), and any other kind (`footer/match`: e-mail, postal code): the
# match itself. The value only, as the guidelines say: no key, no title, no trailing
# punctuation.
# `any/...`: not restricted to a section; `any/match` is the match
# itself (an unambiguous date format)
ANY_SECTION = "any"
MATCH = "match"  # `footer/match`, `any/match`, and any kind without a handler: the match itself
VETO = "veto"  # pattern ids `any/veto`: phrases that are not PHI, left to entity_checks
# pattern ids `any/fallback`: `avenida de Portugal`; the match, only where no
# other entity is (entity_checks)
FALLBACK = "fallback"
# pattern ids `any/fallback_number`: `nº DVA-31-0004417`, `biopsia B24-18877`; the code after the
# key, with four digits or more, only where no other entity is
FALLBACK_NUMBER = "fallback_number"
NUMBER_KEYS = {"nº", "n.º", "n°", "número", "núm", "núm.", "num", "nro", "nro."}
TIME_OF_DAY = re.compile(r"(?:[01]?\d|2[0-3])[:h][0-5]\d(?::[0-5]\d)?h?")
AGE = "age"  # pattern ids `any/age`: `Niña de 3 meses`, `14 días de vida`; the entity is the age
RELATIVE = "relative"  # pattern ids `any/relative`: `su madre`; the entity is the relative
# pattern ids `any/relative_age`: `madre de 29 años`; the entity is the age (P4.3)
RELATIVE_AGE = "relative_age"
# pattern ids `any/relative_ages`: `sus hijos, de 8, 5 y 2 años`; each age is one
# entity, the last with its unit
RELATIVE_AGES = "relative_ages"
# pattern ids `any/relative_name`: `su madre Carmen`; the entity is the name (P4.1)
RELATIVE_NAME = "relative_name"
# pattern ids `any/name_before`: `Ana, la hija,`, `Rosa Gil (hija)`, `Luis Gil Ros (Neumología)`;
# the entity is the capitalised words before the comma or bracket
NAME_BEFORE = "name_before"
# `sus hijas, Sonia y Marta`: a second name after the first (pipeline/data/<lang>/)
NAME_LINKS = set(words("name_links"))
# pattern ids `any/month`: `en junio por`, `desde septiembre hasta`; the entity is the month (P6.2)
MONTH = "month"
# pattern ids `any/group`: `Mujer ecuatoriana`, `de raza negra`; the entity is the group (P17.2-3)
GROUP = "group"
GROUP_HEAD = "raza"  # kept in the entity: `raza caucásica`
# pattern ids `any/town`: a place cue (`vive en`, `natural de`) and capitalised words; the entity is
# the longest gazetteer town they start with
TOWN = "town"
# pattern ids `any/cued_number`: `cama 14`, `Hab./Cama: 312-B`, `box OBS-12`; the entity starts at
# the first token after the cue with a digit or a unit's capitals
CUED_NUMBER = "cued_number"
# pattern ids `any/first_number`: `del 2 al 5 de marzo`, a line opening `14/05:`; the entity
# is the first token with a digit
FIRST_NUMBER = "first_number"
# pattern ids `any/trim`: `tarjeta del SAS`, `trabaja en Talleres Gil S.L.`; the entity is the match
# without its leading context words
TRIM = "trim"


def _town_key(name: str) -> str:
    """A town name with its articles and prepositions in lower case and without accents:
    `San Sebastián de Los Reyes` is `San Sebastian de los Reyes`; the other words keep their
    case (GeoNames writes its names without accents)."""
    name = "".join(c for c in unicodedata.normalize("NFD", name) if not unicodedata.combining(c))
    return " ".join(w.lower() if w.lower() in TOWN_LINKS else w for w in name.split())


def _faker_jobs() -> list[str]:
    """Faker's Spanish job titles of one word, lower case (`albañil`, `fontanero`)."""
    try:
        from faker.providers.job.es_ES import Provider
    except ImportError:  # Faker comes with the surrogates; without it the list alone counts
        return []
    return [j.lower() for j in Provider.jobs if " " not in j and "/" not in j]


def _town_forms(name: str) -> tuple[str, ...]:
    """The gazetteer writes 18 towns with the article last (`Coruña, A`, `Palmas de Gran
    Canaria, las`); reports write it first (`A Coruña`, `Las Palmas de Gran Canaria`)."""
    head, sep, article = name.rpartition(", ")
    if not sep or len(article.split()) != 1 or len(article) > 4:
        return (name,)
    article = article[:1].upper() + article[1:]
    return (name, f"{article}{head}" if article.endswith("'") else f"{article} {head}")


def _before_time(doc: Doc, start: int, end: int, time_lead: Collection[str]) -> int:
    """The end of a date value before a time of day and the words that lead to it
    (`time_lead`; guideline N6.1: the hour is not part of the date): `12/03/2024 a las
    10:30` ends after `2024`."""
    for i in range(start, end):
        if TIME_OF_DAY.fullmatch(doc[i].text):
            while i > start and (doc[i - 1].lower_ in time_lead or doc[i - 1].is_space):
                i -= 1
            return i
    return end


@Language.factory(
    "meddocan_rule_entities",
    default_config={
        "candidates_key": "phi_rules",
        "sections_key": SECTIONS_KEY,
        "spans_key": "rule_entities",
        # towns anywhere and `any/fallback` matches: entities only where no other entity is
        # (entity_checks adds them after the NER)
        "fallback_key": "fallback_entities",
        "footer_labels": None,
        "split_labels": ["TERRITORIO"],
        "annotate_ents": True,
        # an age within three words after one of these is a relative's, left to the NER
        "kinship_words": tagged_words("kinship_words", "patient_age_veto"),
        # titles left out of a header name value (shared default with meddocan_entity_edges)
        "titles": TITLES,
        # a `. ` or ` - ` after these does not split a place: `Cdad. Real` is one place
        "place_abbreviations": words("place_abbreviations"),
        # what leads from a header date to a time of day, which stays out of the date: `a las 10:30`
        "time_lead": words("time_lead"),
        # words after the number of an age that are context, not the age: `14 días de vida`
        "age_context_words": words("age_context_words"),
        # a town after a cue is taken only when one of its words is rarer in Spanish than this
        # (spacy-lookups-data `es_lexeme_prob`): not `Mayor`, `Real`,
        # `Puertas`; `Quintanilla del Agua`
        "town_max_log_prob": -11.0,
        # words that start a name with a place in it: no town after `Hospital de`, `Calle de`
        "town_name_heads": words("town_name_heads"),
        # a patient age is not followed by these (alone or after `de`): `2 años
        # después`, `3 meses de evolución`
        "not_age_after": words("not_age_after"),
        # lower-case words that lead an `any/trim` match and stay out of the entity
        "trim_words": words("trim_words"),
        # a number followed by one of these is a duration or a dose, not a bed or
        # room (`reposo en cama 3 días`)
        "number_units": words("number_units"),
        # a job (configs/patterns/professions.txt, Faker's es_ES jobs, the gazetteer's professions)
        # is PROFESION only next to one of these cues (guideline: any
        # job of the patient or a relative)
        "profession_verbs": words("profession_verbs"),
        "profession_links": words("profession_links"),
        "profession_copulas": words("profession_copulas"),
        "profession_after": words("profession_after"),
        "age_units": words("age_units"),
        # a run of capitalised words ending in one of these is a company (INSTITUCION; entity_checks
        # makes it the patient's or a relative's employer after a job or work word, guideline P28.1)
        "company_suffixes": words("company_suffixes"),
        "company_links": words("company_links"),
        # a possessive before a relative is not part of it (`su madre`), and an age after one
        # is not the patient's (`su mujer de 80 años`)
        "possessives": words("possessives"),
        # names of towns that the gazetteer and GeoNames write in another language only (`Bilbo`)
        "town_names": words("town_names"),
        # in a Catalan, Galician or Basque line: a kinship word (`filla`, `irmá`, `alaba`, in
        # Basque with a case suffix too: `Amaren`) and a weekday (`dijous`, `mércores`), by
        # language; in a Basque line a town or a country with a case suffix (`Bilbon`,
        # `Frantziatik`), but not a Basque word that is also a place (`Berak`)
        "passage_kinship_words": {
            lang: tagged_words("kinship_words", "passage_relative", lang)
            for lang in ("ca", "gl", "eu")
        },
        "passage_weekdays": {lang: words("weekday_names", lang) for lang in ("ca", "gl")},
        "country_names": words("country_names"),
        "place_stop_stems": words("place_stop_stems"),
    },
    assigns=["doc.ents", "doc.spans"],
)
class RuleEntities(SerializedState):
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        candidates_key: str,
        sections_key: str,
        spans_key: str,
        fallback_key: str,
        footer_labels: list[str] | None,
        split_labels: list[str],
        kinship_words: list[str],
        titles: list[str],
        place_abbreviations: list[str],
        time_lead: list[str],
        age_context_words: list[str],
        possessives: list[str],
        trim_words: list[str],
        town_max_log_prob: float,
        town_name_heads: list[str],
        not_age_after: list[str],
        number_units: list[str],
        profession_verbs: list[str],
        profession_links: list[str],
        profession_copulas: list[str],
        profession_after: list[str],
        age_units: list[str],
        company_suffixes: list[str],
        company_links: list[str],
        town_names: Collection[str] = (),
        country_names: Collection[str] = (),
        place_stop_stems: Collection[str] = (),
        passage_kinship_words: dict[str, list[str]] | None = None,
        passage_weekdays: dict[str, list[str]] | None = None,
        annotate_ents: bool = True,
    ):
        self.name = name
        self.candidates_key = candidates_key
        self.sections_key = sections_key
        self.spans_key = spans_key
        self.fallback_key = fallback_key
        # None: every footer rule label is written; a list restricts
        # the footer rules to those labels
        self.footer_labels = set(footer_labels) if footer_labels is not None else None
        self.split_labels = set(split_labels)
        self.kinship_words = set(kinship_words)
        self.titles = set(titles)
        # a town's name after these is a person's (`Dr. Toledo`, `la señora Olmedo`)
        self.titles_lower = {t.lower().rstrip(".") for t in titles} | set(
            tagged_words("titles", "address")
        )
        self.place_abbreviations = set(place_abbreviations)
        self.time_lead = set(time_lead)
        self.age_context_words = set(age_context_words)
        self.possessives = set(possessives)
        self.trim_words = set(trim_words)
        self.town_max_log_prob = town_max_log_prob
        self.not_age_after = set(not_age_after)
        self.number_units = set(number_units)
        self.town_name_heads = set(town_name_heads)
        self.profession_verbs, self.profession_links = set(profession_verbs), set(profession_links)
        self.profession_copulas, self.profession_after = (
            set(profession_copulas),
            set(profession_after),
        )
        self.age_units = set(age_units)
        self.company_suffixes, self.company_links = set(company_suffixes), set(company_links)
        self.town_names = list(town_names)
        self.country_names = {lookup_key(c) for c in country_names}
        self.place_stop_stems = {lookup_key(w) for w in place_stop_stems}
        self.passage_kinship_words = {
            lang: {lookup_key(w) for w in ws} for lang, ws in (passage_kinship_words or {}).items()
        }
        self.passage_weekdays = {
            lang: {lookup_key(w) for w in ws} for lang, ws in (passage_weekdays or {}).items()
        }
        self.professions: list[str] = []  # jobs, lower case (initialize, saved with the pipeline)
        # (the vocab's gazetteer, first word -> the jobs it starts, longest first)
        self._jobs: tuple[Gazetteer | None, dict[str, list[tuple[str, ...]]] | None] = (None, None)
        # more town names than the gazetteer's (initialize, saved with the pipeline)
        self.towns: list[str] = []
        # (the vocab's gazetteer, the town names)
        self._towns: tuple[Gazetteer | None, frozenset[str]] = (None, frozenset())
        # (the town names, their first words)
        self._town_firsts: tuple[AbstractSet[str] | None, frozenset[str]] = (None, frozenset())
        self._log_prob: Callable[[str], float] | None = None
        self._dictionary: frozenset[str] | None = None
        self._verb_form: Callable[[str], bool] | None = None
        # False: only doc.spans (an NER in training reads them as features; preset
        # doc.ents that disagree with the gold would leave it no valid action)
        self.annotate_ents = annotate_ents

    def initialize(
        self,
        get_examples: Callable | None = None,
        *,
        nlp: Language | None = None,
        towns: list[str] | None = None,
        professions: list[str] | None = None,
    ) -> None:
        """towns: town names to take after a place cue besides the gazetteer's (GeoNames places);
        professions: jobs (lower case, one or more words), to which Faker's es_ES jobs are added."""
        self.towns = sorted(set(towns or ()))
        self.professions = sorted(set(p.lower() for p in professions or ()) | set(_faker_jobs()))
        self._towns, self._jobs = (None, frozenset()), (None, None)

    # absent in pipelines saved before the lists
    state_files = {"towns": "towns.txt", "professions": "professions.txt"}

    def get_state(self) -> dict:
        return {"towns": self.towns, "professions": self.professions}

    def set_state(self, state: dict) -> None:
        self.towns, self.professions = (
            list(state.get("towns", ())),
            list(state.get("professions", ())),
        )
        self._towns, self._jobs = (None, frozenset()), (None, None)

    def __call__(self, doc: Doc) -> Doc:
        sections = {s.label_: s for s in doc.spans.get(self.sections_key, [])}
        candidates = sorted(doc.spans.get(self.candidates_key, []), key=lambda s: s.start)
        header_keys = frozenset(
            c.start for c in candidates if c.id_ == "header/line"
        )  # O(1) lookups
        found: dict[bool, list[Span]] = {False: [], True: []}  # is fallback -> spans
        for cand in candidates:
            section_name, _, kind = cand.id_.partition("/")
            rule = RULE_KINDS.get(kind)
            section = None
            if rule is None or rule.in_section:
                if section_name == ANY_SECTION:
                    rule = RULE_KINDS[MATCH]  # `any/<kind>` of a section kind: the match itself
                else:
                    section = sections.get(section_name)
                    if section is None or not (
                        section.start <= cand.start and cand.end <= section.end
                    ):
                        continue  # a rule applies only inside its own section
                    if (
                        section_name == "footer"
                        and self.footer_labels is not None
                        and cand.label_ not in self.footer_labels
                    ):
                        continue
                    rule = rule or RULE_KINDS[MATCH]
            found[rule.fallback].extend(
                rule.handler(self, doc, cand, RuleContext(section, header_keys))
            )
        entities = found[False] + self._professions(doc)
        entities.extend(
            self._companies(doc)
        )  # after the others: a rule's label wins over a company of the same span
        fallback = found[True] + self._towns_anywhere(doc)
        langs = token_languages(doc)
        if any(lang != "es" for lang in langs):
            entities.extend(relatives(doc, langs, self.passage_kinship_words))
            entities.extend(weekdays(doc, langs, self.passage_weekdays))
            towns = self._town_names(doc)
            fallback.extend(
                suffixed_places(
                    doc,
                    langs,
                    lambda stem: _town_key(stem) in towns,
                    self.country_names,
                    self.place_stop_stems,
                )
            )
        doc.spans[self.fallback_key] = filter_spans(fallback)
        # overlap policy: among rule entities the longest wins; written before the NER, which
        # keeps them and predicts around them
        entities = filter_spans(entities)
        doc.spans[self.spans_key] = entities
        if self.annotate_ents:
            # the rule entities replace the entities they overlap
            doc.ents = prioritize_new_ents_filter(doc.ents, entities)
        return doc

    def _age(self, doc: Doc, cand: Span) -> list[Span]:
        """The age of the patient, not of a relative: `madre de 31 años de edad` is left
        to the NER (the guidelines make it FAMILIARES), and so is `su mujer de 80 años`."""
        start, end = cand.start, cand.end
        while start < end and not doc[start].like_num and doc[start].lower_ not in {"un", "una"}:
            start += 1
        while end > start and doc[end - 1].lower_ in self.age_context_words:
            end -= 1
        after = [t.lower_ for t in doc[cand.end : cand.end + 2]]
        if (
            after[:1]
            and after[0] in self.not_age_after
            or after[:1] == ["de"]
            and after[1:]
            and after[1] in self.not_age_after
        ):
            return []  # `el paciente, 2 años después`, `3 meses de evolución`: a time, not an age
        if (
            end > start
            and doc[end - 1].lower_ == "a"
            and end < len(doc)
            and (doc[end].like_num or doc[end].is_digit)
        ):
            return []  # `de 35 a 40`: a range, not the abbreviation of `años`
        before = {t.lower_ for t in doc[max(0, cand.start - 3) : cand.start]}
        if before & self.kinship_words or (
            cand.start > 0 and doc[cand.start - 1].lower_ in self.possessives
        ):
            return []
        return [Span(doc, start, end, label=cand.label)] if end > start else []

    def _town_names(self, doc: Doc) -> AbstractSet[str]:
        """The town names of the gazetteer stored in the pipeline's vocab and of the town list
        (`initialize(towns=...)`: `configs/patterns/towns_geonames.txt`)."""

        gaz = from_vocab(doc.vocab)
        if gaz is not self._towns[0]:
            names = (list(gaz.get("towns")) if gaz is not None else []) + self.towns
            names += self.town_names
            self._towns = (gaz, frozenset(_town_key(n) for t in names for n in _town_forms(t)))
        return self._towns[1]

    @staticmethod
    def _next_name(doc: Doc, end: int, label) -> list[Span]:
        """`y Marta` right after a name: the capitalised words after the link are a second name."""
        if end + 1 >= len(doc) or doc[end].lower_ not in NAME_LINKS or not doc[end + 1].is_title:
            return []
        stop = end + 1
        while stop < len(doc) and stop - end <= 4 and doc[stop].is_title and doc[stop].is_alpha:
            stop += 1
        return [Span(doc, end + 1, stop, label=label)] if stop > end + 1 else []

    def _towns_anywhere(self, doc: Doc) -> list[Span]:
        """Every run of capitalised words (with `de`, `la`... inside) that is a gazetteer or
        GeoNames town, longest first; a run in capitals is read in title case (`PONFERRADA`), but
        not an acronym of four letters or fewer. A town is PHI wherever it stands (TERRITORIO),
        with or without a cue. Not after a title (`Dr. Toledo`) or a capitalised word of the same
        name (`Hospital Comarcal Santa Ana`, `Noelia Fernández Tejada`), not common Spanish words
        only, not one dictionary word opening a sentence. Fallback entities: the NER and the
        other rules decide first."""
        towns = self._town_names(doc)
        if self._town_firsts[0] is not towns:
            self._town_firsts = (towns, frozenset(t.split()[0] for t in towns))
        firsts = self._town_firsts[1]

        def key(start: int, end: int) -> str:
            text = doc[start:end].text
            return _town_key(text.title() if text.isupper() else text)

        found: list[Span] = []
        i, n = 0, len(doc)
        while i < n:
            token = doc[i]
            if (
                not token.text[:1].isupper()
                or key(i, i + 1) not in firsts
                or self._inside_name(doc, i)
            ):
                i += 1
                continue
            end = None
            for stop in range(min(n, i + 6), i, -1):
                if not doc[stop - 1].text[:1].isupper() or any(
                    not (t.text[:1].isupper() or t.lower_ in TOWN_LINKS)
                    for t in doc[i + 1 : stop - 1]
                ):
                    continue
                if key(i, stop) in towns:
                    end = stop
                    break
            if end is None:
                i += 1
                continue
            words = [t.text for t in doc[i:end] if t.text[:1].isupper()]
            # one word opening a sentence that the dictionary knows, however rare, is that word
            # (`Dolores abdominales`, `Agudo`)
            # or a conjugated verb (`Nieva en la sierra`: it snows)
            opening_word = len(words) == 1 and (
                self._opening_word(doc, i)
                or (self._sentence_start(doc, i) and self._verb(doc[i].lower_))
            )
            # one short word in capitals is an acronym (`CEA`, the tumour marker; the town is Cea)
            acronym = len(words) == 1 and words[0].isupper() and len(words[0]) <= 4
            if (
                (len(words) > 1 or len(words[0]) > 2)
                and not opening_word
                and not acronym
                and not all(self._common_word(w) for w in words)
            ):
                found.append(Span(doc, i, end, label="TERRITORIO"))
            i = end
        return found

    def _inside_name(self, doc: Doc, i: int) -> bool:
        """Token i follows a title (`Dr. Toledo`, `Sra. Dolores`) or a capitalised word that does
        not open a sentence (`Hospital Comarcal Santa Ana`)."""
        before = i - 1 - (i > 1 and doc[i - 1].text == ".")
        if before < 0:
            return False
        prev = doc[before]
        if prev.lower_.rstrip(".") in self.titles_lower:
            return True
        return (
            before == i - 1
            and prev.text[:1].isupper()
            and prev.is_alpha
            and not self._sentence_start(doc, before)
        )

    def _job_index(self, doc: Doc) -> dict:
        """First word -> the jobs (tuples of words) it starts, longest first: the pipeline's list,
        the gazetteer's professions, and the feminine forms (`-o`/`-or` -> `-a`/`-ora`)."""

        gaz = from_vocab(doc.vocab)
        cached_gaz, index = self._jobs
        if gaz is not cached_gaz or index is None:
            jobs = set(self.professions) | (
                {g.lower() for g in gaz.get("professions")} if gaz is not None else set()
            )
            for job in list(jobs):
                head, _, rest = job.partition(" ")
                for fem in (
                    head[:-1] + "a" if head.endswith("o") else None,
                    head + "a" if head.endswith("or") else None,
                ):
                    if fem:
                        jobs.add(f"{fem} {rest}".strip())
            index = {}
            for job in jobs:
                job_words = tuple(job.split())
                if job_words:
                    index.setdefault(job_words[0], []).append(job_words)
            for starting in index.values():
                starting.sort(key=len, reverse=True)
            self._jobs = (gaz, index)
        return index

    def _professions(self, doc: Doc) -> list[Span]:
        """`trabaja como soldador`, `es camionera`, `Varón de 20 años, pescador,`, `agricultor
        jubilado`: a known job next to a cue is PROFESION (the job alone, no cue words)."""
        index = self._job_index(doc)
        out, i = [], 0
        while i < len(doc):
            jobs = index.get(doc[i].lower_)
            if not jobs:
                i += 1
                continue
            end = next(
                (i + len(w) for w in jobs if tuple(t.lower_ for t in doc[i : i + len(w)]) == w),
                None,
            )
            if end is None:
                i += 1
                continue
            if self._job_cue(doc, i, end):
                out.append(Span(doc, i, end, label="PROFESION"))
            i = end
        return out

    def _job_cue(self, doc: Doc, start: int, end: int) -> bool:
        """A cue next to the job `doc[start:end]`."""
        before = [t.lower_ for t in doc[max(0, start - 3) : start] if not t.is_space]
        after = [t.lower_ for t in doc[end : end + 2]]
        if (
            before[-2:-1]
            and before[-2] in self.profession_verbs
            and before[-1] in self.profession_links
        ):
            return True  # `trabaja como soldador`
        if before[-1:] and before[-1] in self.profession_copulas:
            return True  # `es camionera`
        if before[-2:-1] and before[-2] in self.age_units and before[-1] == ",":
            return True  # `Varón de 20 años, pescador`
        if before[-2:] == ["de", "profesión"] or after[:2] == ["de", "profesión"]:
            return True
        if after[:1] and after[0] in self.profession_after:
            return True  # `agricultor jubilado`
        if after[:1] and after[0] in ("en", "para"):
            # `camionero en Transportes Gil S.L.`, `maestra en el CEIP
            # ...`: the job and its employer
            employer = [t for t in doc[end + 1 : end + 3] if t.lower_ not in self.company_links][:1]
            return bool(employer) and employer[0].text[:1].isupper()
        return False

    def _companies(self, doc: Doc) -> list[Span]:
        """`Talleres Hermanos Olmedo S.L.`, `Fruites del Segrià SAT`: capitalised words (small
        words between them) up to a company suffix; a leading function word stays out."""
        out = []
        for i, token in enumerate(doc):
            if token.text not in self.company_suffixes or i == 0:
                continue
            start, j = i, i - 1
            while j >= 0 and i - j <= 8:
                t = doc[j]
                if t.text[:1].isupper() and (t.is_alpha or "-" in t.text or "." in t.text):
                    start, j = j, j - 1
                elif t.lower_ in self.company_links and j > 0 and doc[j - 1].text[:1].isupper():
                    j -= 1
                else:
                    break
            while start < i and (
                doc[start].lower_ in self.trim_words
                or doc[start].lower_ in self.company_links
                or doc[start].lower_ in self.profession_copulas
                or (self._sentence_start(doc, start) and self._dictionary_word(doc[start].lower_))
            ):
                start += (
                    1  # `En Talleres Gil S.L.`, `Prótesis de Ortopedia Norte SL`: not the company's
                )
            if start < i:
                # `S.C.A` + `.`: the tokenizer leaves the last dot of some suffixes apart
                end = (
                    i
                    + 1
                    + (
                        i + 1 < len(doc)
                        and doc[i + 1].text == "."
                        and "." in token.text
                        and not token.text.endswith(".")
                    )
                )
                out.append(Span(doc, start, end, label="INSTITUCION"))
        return out

    @staticmethod
    def _sentence_start(doc: Doc, i: int) -> bool:
        return i == 0 or doc[i - 1].text in SENTENCE_END or is_line_break(doc[i - 1])

    def _dictionary_word(self, word: str) -> bool:
        """`word` (lower case) is a Spanish noun, adjective or verb lemma (`es_lemma_index`)."""
        if self._dictionary is None:
            self._dictionary = load_dictionary_words()
        return word in self._dictionary

    def _opening_word(self, doc: Doc, i: int) -> bool:
        """Token i opens a sentence and is a dictionary word, however rare: capitalised by its
        place, not as a name (`Dolores abdominales`, `Ayer, la hija, ...`)."""
        return self._sentence_start(doc, i) and self._dictionary_form(doc[i].text)

    def _dictionary_form(self, word: str) -> bool:
        """`word` or its singular is a dictionary word, whatever its frequency."""
        w = word.lower()
        singulars = (w, w[:-1] if w.endswith("s") else w, w[:-2] if w.endswith("es") else w)
        return any(self._dictionary_word(form) for form in singulars)

    def _verb(self, word: str) -> bool:
        """`word` (lower case) is a conjugated Spanish verb (`nieva`)."""
        if self._verb_form is None:
            self._verb_form = load_verb_forms()
        return self._verb_form(word)

    def _common_word(self, word: str) -> bool:
        """A frequent Spanish word that is also in the dictionary, or its plural is (`Mayor`,
        `Real`, `Puertas`); frequency alone would take in the big towns
        (`Madrid`, log-probability -10.4)."""
        if self._log_prob is None:
            self._log_prob = load_log_probs()
        w = word.lower()
        if self._log_prob(w) <= self.town_max_log_prob:
            return False
        return self._dictionary_form(w)

    def _town(self, doc: Doc, cand: Span) -> list[Span]:
        """`vive en Tolosa`: the longest run of words after the cue that is a gazetteer town
        (case as written but for `de`, `los`...), not made of common Spanish words only; nothing
        after a capitalised word or abbreviation (`Hospital de Mérida`, `López de Haro`, `Ctra. de
        Logroño`: a name, not a place cue)."""
        towns = self._town_names(doc)
        before = cand.start - 1
        if (
            before > 0
            and doc[before].text == "."
            and not doc[before - 1].whitespace_
            and doc[before - 1].lower_ in self.town_name_heads
        ):
            before -= 1  # `Ctra. de Logroño`: an abbreviation before the cue, not a sentence end
        if not towns:
            return []
        if doc[cand.start].is_punct or doc[cand.start].is_space:
            # `Hospital Álvaro Cunqueiro, Vigo` at a line end, `Vigo,
            # 14/02/25`: the cue is the layout
            pass
        elif before >= 0 and doc[before].is_lower and doc[before].lower_ in self.town_name_heads:
            return []  # `la avenida de Meco`: a street's name
        elif before >= 0 and doc[before].text[:1].isupper():
            # a capitalised word inside a sentence is a name; at its start (`Vive en`) it is a
            # cue unless it heads a name (`Hospital de`, `Calle de`)
            sentence_start = (
                before == 0
                or doc[before - 1].text in SENTENCE_END
                or is_line_break(doc[before - 1])
            )
            if not sentence_start or doc[before].lower_.rstrip(".") in self.town_name_heads:
                return []
        start = cand.start + 1
        ends: Sequence[int] = range(cand.end, start, -1)
        if doc[cand.start].is_punct or doc[cand.start].is_space:
            # a layout cue: all the words up to the comma or the line end are the town
            # (`Olmedo Rivas, 16 años` is a name that starts with a town's)
            ends = [
                next(
                    i
                    for i in range(start, cand.end + 1)
                    if i == cand.end
                    or not doc[i].text[:1].isupper()
                    and doc[i].lower_ not in TOWN_LINKS
                )
            ]
        for end in ends:
            if _town_key(doc[start:end].text) in towns and doc[end - 1].text[:1].isupper():
                words = [t.text for t in doc[start:end] if t.text[:1].isupper()]
                if all(self._common_word(w) for w in words):
                    return []
                return [Span(doc, start, end, label=cand.label)]
        return []

    def _line_value(
        self, doc: Doc, key: Span, sec: Span, header_keys: AbstractSet[int]
    ) -> list[Span]:
        end = key.end
        while end < sec.end and not is_line_break(doc[end]) and end not in header_keys:
            end += 1
        label = key.label_
        if label == "FECHAS":
            end = _before_time(doc, key.end, end, self.time_lead)
        start, end = strip_edges(
            doc, key.end, end, titles=self.titles if label.startswith("NOMBRE_") else ()
        )
        if label.startswith("ID_"):
            # `CIPA: nhc-248135`: an identifier starts at its first digit
            while start < end and not has_digit(doc[start]):
                start += 1
        if start >= end:
            return []
        if label in self.split_labels:
            return self._split(doc, start, end, key.label)
        return [Span(doc, start, end, label=key.label)]

    def _split(self, doc: Doc, start: int, end: int, label) -> list[Span]:
        """`Tolosa, Gipuzkoa` and `Getafe - Madrid` are two places, `Vitoria-Gasteiz` one."""
        spans, chunk_start = [], start
        for i in range(start, end + 1):
            if (
                i == end
                or doc[i].text in SPLIT_PUNCT
                or (
                    doc[i].text in SPACED_SPLIT_PUNCT
                    and doc[i].whitespace_
                    and not (i > start and doc[i - 1].lower_ in self.place_abbreviations)
                )
            ):
                s, e = strip_edges(doc, chunk_start, i)
                if e > s:
                    spans.append(Span(doc, s, e, label=label))
                chunk_start = i + 1
        return spans

    def _number_value(self, doc: Doc, key: Span, sec: Span) -> list[Span]:
        i = key.end
        while i < sec.end and (
            doc[i].is_space and not is_line_break(doc[i]) or doc[i].text in {"+", ":", ".", "("}
        ):
            i += 1
        start = end = i
        while i < sec.end and (
            has_digit(doc[i])
            or doc[i].text in NUMBER_SEPARATORS
            or (doc[i].is_space and not is_line_break(doc[i]))
        ):
            if has_digit(doc[i]):
                end = i + 1
            i += 1
        return [Span(doc, start, end, label=key.label)] if end > start else []

    def _street(self, doc: Doc, head: Span, sec: Span) -> list[Span]:
        end = street_end(doc, head, sec.end)
        return [Span(doc, head.start, end, label=head.label)] if end is not None else []


class RuleContext(NamedTuple):
    """Where a candidate stands: its section (None for the kinds that apply anywhere) and the
    starts of the header keys (a header value ends at the next key)."""

    section: Span | None
    header_keys: AbstractSet[int]


# (component, doc, candidate, context) -> the entities of one candidate
RuleHandler = Callable[["RuleEntities", Doc, Span, RuleContext], list[Span]]


class RuleKind(NamedTuple):
    handler: RuleHandler
    in_section: bool  # applies only inside the section its id names (`header/line`); else anywhere
    fallback: (
        bool  # its spans are fallback entities (entity_checks adds them where no other entity is)
    )


# the kind of a pattern id `<section>/<kind>` -> what the rule makes of its candidate
RULE_KINDS: dict[str, RuleKind] = {}


def rule_kind(
    kind: str, *, in_section: bool = False, fallback: bool = False
) -> Callable[[RuleHandler], RuleHandler]:
    """Register the handler of the pattern ids `<section>/<kind>`."""

    def register(handler: RuleHandler) -> RuleHandler:
        RULE_KINDS[kind] = RuleKind(handler, in_section, fallback)
        return handler

    return register


@rule_kind(MATCH, in_section=True)
def _match(rules, doc, cand, ctx):
    """`footer/match` (e-mail, postal code), `any/match` (an unambiguous
    date format): the match itself."""
    return [Span(doc, cand.start, cand.end, label=cand.label)]


@rule_kind("line", in_section=True)
def _header_line(rules, doc, cand, ctx):
    return rules._line_value(doc, cand, ctx.section, ctx.header_keys)


@rule_kind("number", in_section=True)
def _footer_number(rules, doc, cand, ctx):
    return rules._number_value(doc, cand, ctx.section)


@rule_kind("street", in_section=True)
def _footer_street(rules, doc, cand, ctx):
    return rules._street(doc, cand, ctx.section)


@rule_kind(VETO)
def _veto(rules, doc, cand, ctx):
    return []  # not PHI: read by entity_checks


@rule_kind(FALLBACK, fallback=True)
def _fallback(rules, doc, cand, ctx):
    end = cand.end  # an optional link word that no name follows stays out (`Urb. Los Monjes y`)
    while end > cand.start + 1 and (doc[end - 1].is_lower or doc[end - 1].is_punct):
        end -= 1
    return [Span(doc, cand.start, end, label=cand.label)]


@rule_kind(FALLBACK_NUMBER, fallback=True)
def _fallback_number(rules, doc, cand, ctx):
    # the code starts at its first token with a digit or capitals after the key words
    start = next(t.i for t in cand[1:] if t.text not in {".", ":"} and t.lower_ not in NUMBER_KEYS)
    end = cand.end
    while end > start + 1 and doc[end - 1].text in NUMBER_SEPARATORS:
        end -= 1
    return (
        [Span(doc, start, end, label=cand.label)]
        if sum(c.isdigit() for c in doc[start:end].text) >= 4
        else []
    )


@rule_kind(AGE)
def _patient_age(rules, doc, cand, ctx):
    return rules._age(doc, cand)


@rule_kind(RELATIVE_AGE)
def _relative_age(rules, doc, cand, ctx):
    # a relative's age is the relative's PHI; the age (number and unit) ends the match
    return [Span(doc, cand.end - 2, cand.end, label=cand.label)]


@rule_kind(RELATIVE_AGES)
def _relative_ages(rules, doc, cand, ctx):
    numbers = [t.i for t in cand if t.is_digit]
    return [Span(doc, i, i + 1, label=cand.label) for i in numbers[:-1]] + [
        Span(doc, numbers[-1], cand.end, label=cand.label)
    ]


@rule_kind(RELATIVE_NAME)
def _relative_name(rules, doc, cand, ctx):
    # (possessive,) kinship word, an optional comma or bracket, then the name: a relative's
    # name is FAMILIARES; the name is the match from its first capitalised word
    start = next(t.i for t in cand[1:] if t.is_title)
    return [Span(doc, start, cand.end, label=cand.label)] + rules._next_name(
        doc, cand.end, cand.label
    )


@rule_kind(NAME_BEFORE)
def _name_before(rules, doc, cand, ctx):
    # the capitalised words before the comma or bracket, unless one dictionary word opens the
    # sentence (`Ayer, la hija, trajo...`) or they name a place (`Hospital Central (Cardiología)`)
    # the last token is the cue (a comma, a bracket, a Basque title that may be capitalised:
    # `Agirre Doktorea`)
    end = next((t.i for t in cand if not t.is_title), cand.end - 1)
    start = cand.start
    if start > 0 and (doc[start - 1].is_title or doc[start - 1].lower_ in {"de", "del"}):
        # the whole run decides, not a part of it; after `de` it names a place (`Unidad de ...`)
        return []
    if (end - start == 1 and rules._opening_word(doc, start)) or any(
        t.lower_ in rules.town_name_heads for t in doc[start:end]
    ):
        return []
    return [Span(doc, start, end, label=cand.label)]


@rule_kind(MONTH)
def _month(rules, doc, cand, ctx):
    # context word, month, and a next word that shows no day or year follows
    return [Span(doc, cand.start + 1, cand.start + 2, label=cand.label)]


@rule_kind(GROUP)
def _group(rules, doc, cand, ctx):
    # the group word ends the match; what comes before it is context
    start = cand.end - 1
    if start > cand.start and doc[start - 1].lower_ == GROUP_HEAD:
        start -= 1
    return [Span(doc, start, cand.end, label=cand.label)]


@rule_kind(TOWN)
def _cued_town(rules, doc, cand, ctx):
    return rules._town(doc, cand)


@rule_kind(FIRST_NUMBER)
def _first_number(rules, doc, cand, ctx):
    first = next(t.i for t in cand if any(c.isdigit() for c in t.text))
    return [Span(doc, first, first + 1, label=cand.label)]


@rule_kind(CUED_NUMBER)
def _cued_number(rules, doc, cand, ctx):
    # the code starts at its first digit or at a unit's capitals (`UCI-04`, `cama B`)
    start = next(
        (
            t.i
            for t in cand[1:]
            if any(c.isdigit() for c in t.text) or re.fullmatch(r"[A-Z]{1,4}", t.text)
        ),
        None,
    )
    unit_after = cand.end < len(doc) and doc[cand.end].lower_ in rules.number_units
    return (
        [Span(doc, start, cand.end, label=cand.label)]
        if start is not None and not unit_after
        else []
    )


@rule_kind(TRIM)
def _trim(rules, doc, cand, ctx):
    start = cand.start
    # context words and a job between them (`trabaja como peón en ...`) stay out
    while start < cand.end - 1 and (doc[start].lower_ in rules.trim_words or doc[start].is_lower):
        start += 1
    return [Span(doc, start, cand.end, label=cand.label)]


@rule_kind(RELATIVE)
def _relative(rules, doc, cand, ctx):
    start = cand.start + (doc[cand.start].lower_ in rules.possessives)
    return [Span(doc, start, cand.end, label=cand.label)]
