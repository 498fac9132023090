"""`meddocan_anchored_span_ruler`: spaCy's `span_ruler` (same config, patterns, saved
form and output) whose token patterns run only where they can match.

Reads the doc's tokens; writes what `span_ruler` writes (`doc.spans[spans_key]`, and
`doc.ents` with `annotate_ents`), the same spans in the same order. Phrase patterns run
as in `span_ruler`; where the phrase attribute is a lexeme's (ORTH, LOWER...), each phrase is
made by the tokenizer alone, where `span_ruler` runs it through every component before the
ruler (776 place names through the NER took 18 of the 21 seconds a pipeline load took; the
gazetteer's 49,000 names through the rules, a minute of each ensemble build). The phrases'
tokens are the same, so are the matches.

Why: spaCy's Matcher starts every token pattern at every token, so its time is patterns
times tokens. A match of a token pattern has, for each required token of the pattern (no
`?`, `*`, `{0,n}` or `!` operator), a token that satisfies that token's spec. When a spec
tests only the token's own string (ORTH, LOWER, REGEX, IN, IS_TITLE, LENGTH...: lexeme
attributes), the tokens that satisfy it follow from the doc's distinct strings, computed
once per string and kept. A pattern's anchors are its runs of such required tokens at fixed
offsets from each other (`de` then a capitalised word). In each doc, a pattern one of whose
required specs no token satisfies is skipped; the others run (a Matcher each) only over the
tokens that a match could cover around the positions of their rarest anchor (the pattern's
bounded length before and after). A match lies inside such a window, and what a pattern
matches inside a window it matches in the doc, so the spans are the same. Patterns with
no such spec, or with `!`, run over the whole doc.
"""

import json
import re
import warnings

import numpy
from spacy.attrs import IDS, ORTH
from spacy.errors import Errors
from spacy.language import Language
from spacy.matcher import Matcher
from spacy.pipeline.span_ruler import SpanRuler
from spacy.tokens import Doc, Span

# token attributes that are a function of the token's string alone (the lexeme's)
LEXEME_ATTRS = frozenset(
    {
        "ORTH",
        "TEXT",
        "LOWER",
        "LENGTH",
        "SHAPE",
        "PREFIX",
        "SUFFIX",
        "IS_ALPHA",
        "IS_ASCII",
        "IS_DIGIT",
        "IS_LOWER",
        "IS_UPPER",
        "IS_TITLE",
        "IS_PUNCT",
        "IS_SPACE",
        "IS_STOP",
        "IS_BRACKET",
        "IS_QUOTE",
        "IS_LEFT_PUNCT",
        "IS_RIGHT_PUNCT",
        "IS_CURRENCY",
        "LIKE_NUM",
        "LIKE_EMAIL",
        "LIKE_URL",
    }
)
UNBOUNDED = 1 << 30
MAX_CACHED_STRINGS = (
    100_000  # the per-string cache (a bool per anchor spec: about 20 MB) restarts past this
)
_QUANTIFIER = re.compile(r"\{(\d*)(,?)(\d*)\}")


def repetitions(op: str | None) -> tuple[int, int]:
    """(fewest, most) tokens a token spec with operator `op` takes (`!` takes one)."""
    if op is None or op == "!":
        return 1, 1
    if op == "?":
        return 0, 1
    if op == "*":
        return 0, UNBOUNDED
    if op == "+":
        return 1, UNBOUNDED
    found = _QUANTIFIER.fullmatch(op)
    if found is None:
        raise ValueError(f"unknown token pattern operator {op!r}")
    low, comma, high = found.groups()
    fewest = int(low) if low else 0
    most = (int(high) if high else UNBOUNDED) if comma else fewest
    return fewest, most


def _lexeme_spec(token: dict) -> dict | None:
    """The spec without its operator when it tests lexeme attributes only."""
    spec = {key: value for key, value in token.items() if key.upper() != "OP"}
    if spec and all(key.upper() in LEXEME_ATTRS for key in spec):
        return spec
    return None


def anchors(pattern: list[dict]) -> list[tuple[list[dict], int, int]]:
    """The anchors of a token pattern: each run of consecutive required lexeme-level
    tokens that take exactly one token each (or one such token that may repeat), as
    (their specs, most tokens a match has before the run, most tokens from the run's first
    token to the end). Empty when the pattern has `!`."""
    ops = [next((v for k, v in token.items() if k.upper() == "OP"), None) for token in pattern]
    if "!" in ops:
        return []
    reps = [repetitions(op) for op in ops]
    specs = [
        _lexeme_spec(token) if fewest >= 1 else None
        for token, (fewest, _most) in zip(pattern, reps)
    ]
    found, k = [], 0
    while k < len(pattern):
        if specs[k] is None:
            k += 1
            continue
        end = k + 1
        if reps[k] == (1, 1):  # a run of single tokens at fixed offsets from each other
            while end < len(pattern) and specs[end] is not None and reps[end] == (1, 1):
                end += 1
        before = min(UNBOUNDED, sum(most for _fewest, most in reps[:k]))
        after = min(UNBOUNDED, sum(most for _fewest, most in reps[k:]))
        found.append(([s for s in specs[k:end] if s is not None], before, after))
        k = end
    return found


def _literal_strings(spec: dict) -> tuple[str, list[str]] | None:
    """("ORTH" or "LOWER", strings) when a spec only compares the token's text (ORTH, TEXT)
    or its lower case with strings (`"x"` or `{"IN": [...]}`)."""
    if len(spec) != 1:
        return None
    ((key, value),) = spec.items()
    attr = {"ORTH": "ORTH", "TEXT": "ORTH", "LOWER": "LOWER"}.get(key.upper())
    if attr is None:
        return None
    if isinstance(value, str):
        return attr, [value]
    if (
        isinstance(value, dict)
        and list(value) == ["IN"]
        and all(isinstance(v, str) for v in value["IN"])
    ):
        return attr, list(value["IN"])
    return None


class AnchoredSpanRuler(SpanRuler):
    """A `span_ruler` whose token patterns run only in the windows where they can match."""

    _plan: "_AnchorPlan | None" = None  # built at the first match, dropped when patterns change

    def clear(self) -> None:
        super().clear()
        self._plan = None

    def add_patterns(self, patterns) -> None:
        if self._phrases_need_the_pipeline():
            super().add_patterns(patterns)
        else:
            self._add_patterns_tokenized(patterns)
        self._plan = None

    def _phrases_need_the_pipeline(self) -> bool:
        """Whether the phrase attribute is set by components (POS, LEMMA, NORM...), so that
        a phrase must run through the components before the ruler, as `span_ruler` does."""
        attr = self.phrase_matcher_attr
        if attr is None:
            return False
        name = attr if isinstance(attr, str) else next(k for k, v in IDS.items() if v == attr)
        return name.upper() not in LEXEME_ATTRS

    def _add_patterns_tokenized(self, patterns) -> None:
        """`SpanRuler.add_patterns`, each phrase made by the tokenizer alone."""
        phrases = []
        for entry in patterns:
            label_id = {"label": entry["label"], "id": entry.get("id", "")}
            key = repr((label_id["label"], label_id["id"]))
            self._match_label_id_map[self.nlp.vocab.strings.as_int(key)] = label_id
            if isinstance(entry["pattern"], str):
                phrases.append((key, entry["pattern"]))
            elif isinstance(entry["pattern"], list):
                self.matcher.add(key, [entry["pattern"]])
            else:
                raise ValueError(Errors.E097.format(pattern=entry["pattern"]))
            self._patterns.append(entry)
        for key, text in phrases:
            self.phrase_matcher.add(key, [self.nlp.make_doc(text)])

    def remove(self, label: str) -> None:
        super().remove(label)
        self._plan = None

    def remove_by_id(self, pattern_id: str) -> None:
        super().remove_by_id(pattern_id)
        self._plan = None

    def match(self, doc: Doc):
        self._require_patterns()
        if self._plan is None:
            self._plan = _AnchorPlan(
                self.nlp.vocab,
                [p for p in self._patterns if isinstance(p["pattern"], list)],
                validate=self.validate,
                fuzzy_compare=self.matcher_fuzzy_compare,
            )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="\\[W036")
            matches = self._plan(doc) + list(self.phrase_matcher(doc))
        deduplicated_matches = set(
            Span(
                doc,
                start,
                end,
                label=self._match_label_id_map[m_id]["label"],
                span_id=self._match_label_id_map[m_id]["id"],
            )
            for m_id, start, end in matches
            if start != end
        )
        return sorted(deduplicated_matches)


class _AnchorPlan:
    """The token patterns of a ruler, each with its own Matcher and its anchors."""

    def __init__(self, vocab, patterns: list[dict], *, validate: bool, fuzzy_compare):
        self.vocab = vocab
        self.spec_ids: dict[str, int] = {}
        self.whole_doc = Matcher(vocab, validate=validate, fuzzy_compare=fuzzy_compare)
        # per windowed pattern: its Matcher, the spec ids it requires, its
        # anchors (spec ids, before, after)
        self.windowed: list[tuple[Matcher, list[int], list[tuple[tuple[int, ...], int, int]]]] = []
        for entry in patterns:
            key = repr((entry["label"], entry.get("id", "")))  # the span ruler's match key
            found = anchors(entry["pattern"])
            if not found:
                self.whole_doc.add(key, [entry["pattern"]])
                continue
            matcher = Matcher(vocab, validate=validate, fuzzy_compare=fuzzy_compare)
            matcher.add(key, [entry["pattern"]])
            runs = [
                (tuple(self._spec_id(spec) for spec in specs), before, after)
                for specs, before, after in found
            ]
            self.windowed.append((matcher, sorted({i for ids, _b, _a in runs for i in ids}), runs))
        # specs that compare the text or its lower case with strings: looked up by string;
        # the others (REGEX, flags, lengths...) are run by a Matcher of one-token patterns
        self.by_string: dict[tuple[str, str], list[int]] = {}
        self.spec_matcher = Matcher(vocab, validate=validate, fuzzy_compare=fuzzy_compare)
        self.spec_keys = {}
        for spec_json, spec_id in self.spec_ids.items():
            spec = json.loads(spec_json)
            literal = _literal_strings(spec)
            if literal is not None:
                attr, values = literal
                for value in set(values):
                    self.by_string.setdefault((attr, value), []).append(spec_id)
                continue
            name = f"anchor_spec_{spec_id}"
            self.spec_matcher.add(name, [[spec]])
            self.spec_keys[vocab.strings.as_int(name)] = spec_id
        # required spec ids per windowed pattern, padded with a column that is always found
        width = max((len(required) for _m, required, _r in self.windowed), default=1)
        self.required = numpy.full(
            (len(self.windowed), width), len(self.spec_ids), dtype=numpy.int64
        )
        for row, (_m, required, _r) in enumerate(self.windowed):
            self.required[row, : len(required)] = required
        self._reset_cache()

    def _spec_id(self, spec: dict) -> int:
        return self.spec_ids.setdefault(json.dumps(spec, sort_keys=True), len(self.spec_ids))

    def _reset_cache(self) -> None:
        self.rows: dict[int, int] = {}
        self.table = numpy.zeros((1024, len(self.spec_ids)), dtype=bool)

    def _spec_table(self, orths: numpy.ndarray) -> numpy.ndarray:
        """tokens x specs: whether each token satisfies each anchor spec."""
        if len(self.rows) > MAX_CACHED_STRINGS:
            self._reset_cache()
        new = [orth for orth in dict.fromkeys(orths.tolist()) if orth not in self.rows]
        if new:
            first = len(self.rows)
            if first + len(new) > len(self.table):
                grown = numpy.zeros(
                    (max(2 * len(self.table), first + len(new)), len(self.spec_ids)), dtype=bool
                )
                grown[:first] = self.table[:first]
                self.table = grown
            for offset, orth in enumerate(new):
                self.rows[orth] = first + offset
            strings = [self.vocab.strings[orth] for orth in new]
            for row, string in enumerate(strings, start=first):
                for key in (("ORTH", string), ("LOWER", self.vocab[string].lower_)):
                    for spec_id in self.by_string.get(key, ()):
                        self.table[row, spec_id] = True
            if len(self.spec_matcher):
                # one token per distinct string: a lexeme spec sees the same string as in the doc
                words = Doc(self.vocab, words=strings, spaces=[False] * len(strings))
                for match_id, start, _end in self.spec_matcher(words):
                    self.table[first + start, self.spec_keys[match_id]] = True
        return self.table[[self.rows[orth] for orth in orths.tolist()]]

    def __call__(self, doc: Doc) -> list[tuple[int, int, int]]:
        matches = list(self.whole_doc(doc)) if len(self.whole_doc) else []
        n = len(doc)
        if not self.windowed or n == 0:
            return matches
        table = self._spec_table(doc.to_array(ORTH))
        found = numpy.append(table.any(axis=0), True)
        run_starts: dict[tuple[int, ...], numpy.ndarray] = {}  # this doc's anchor positions, by run
        for row in numpy.flatnonzero(found[self.required].all(axis=1)).tolist():
            matcher, _required, runs = self.windowed[row]
            best = None
            for ids, before, after in runs:
                positions = run_starts.get(ids)
                if positions is None:
                    if len(ids) > n:
                        positions = numpy.zeros(0, dtype=numpy.int64)
                    else:
                        at = table[: n - len(ids) + 1, ids[0]].copy()
                        for offset, spec_id in enumerate(ids[1:], start=1):
                            at &= table[offset : n - len(ids) + 1 + offset, spec_id]
                        positions = numpy.flatnonzero(at)
                    run_starts[ids] = positions
                if best is None or len(positions) < len(best[0]):
                    best = (positions, before, after)
            if best is None:  # a windowed pattern has at least one run
                continue
            positions, before, after = best
            if not len(positions):
                continue
            starts = numpy.maximum(positions - before, 0)
            ends = numpy.minimum(positions + after, n)
            # windows that overlap or touch are merged (ends grow with
            # positions, `after` being fixed)
            breaks = numpy.flatnonzero(starts[1:] > ends[:-1]) + 1
            for first, last in zip(
                numpy.r_[0, breaks].tolist(), numpy.r_[breaks, len(starts)].tolist()
            ):
                start, end = int(starts[first]), int(ends[last - 1])
                matches.extend((key, start + s, start + e) for key, s, e in matcher(doc[start:end]))
        return matches


@Language.factory(
    "meddocan_anchored_span_ruler",
    assigns=["doc.spans"],
    default_config={
        "spans_key": "ruler",
        "spans_filter": None,
        "annotate_ents": False,
        "ents_filter": {"@misc": "spacy.first_longest_spans_filter.v1"},
        "phrase_matcher_attr": None,
        "matcher_fuzzy_compare": {"@misc": "spacy.levenshtein_compare.v1"},
        "validate": False,
        "overwrite": True,
        "scorer": {"@scorers": "spacy.overlapping_labeled_spans_scorer.v1", "spans_key": "ruler"},
    },
)
def make_anchored_span_ruler(
    nlp: Language,
    name: str,
    spans_key: str | None,
    spans_filter,
    annotate_ents: bool,
    ents_filter,
    phrase_matcher_attr,
    matcher_fuzzy_compare,
    validate: bool,
    overwrite: bool,
    scorer,
) -> AnchoredSpanRuler:
    return AnchoredSpanRuler(
        nlp,
        name,
        spans_key=spans_key,
        spans_filter=spans_filter,
        annotate_ents=annotate_ents,
        ents_filter=ents_filter,
        phrase_matcher_attr=phrase_matcher_attr,
        matcher_fuzzy_compare=matcher_fuzzy_compare,
        validate=validate,
        overwrite=overwrite,
        scorer=scorer,
    )
