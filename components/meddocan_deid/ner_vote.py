"""An ensemble of NERs that vote on each entity (configs/pipeline_ensemble.cfg).

The pipeline's NER runs on the whole Doc. Each other member is a disabled NER component
that `meddocan_ner_member` runs only on windows of `margin` tokens around the entities the
first NER found, and whose entities it writes to `doc.spans[spans_key]`. A majority vote
needs the other members only there: elsewhere they could add an entity only if all of
them agreed. On dev, 2 of 5,708 entities differ from running every member on the whole
Doc, at about a tenth of the cost. Each member predicts around the rule entities, as the
single NER of the default pipeline does.

`meddocan_ner_vote`, after the members, keeps each entity (same offsets and label)
predicted by at least `min_votes` NERs and writes them, with the rule entities, to
`doc.ents`. With three NERs, `min_votes = 2` is a majority vote (fewer false positives).
"""
from collections import Counter
from typing import Iterable, Iterator, List, Tuple

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans, minibatch


def _rule_entities(doc: Doc, rules_key: str) -> List[Span]:
    return list(doc.spans.get(rules_key, []))


@Language.factory(
    "meddocan_ner_vote",
    default_config={"votes_keys": ["ner_votes"], "rules_key": "rule_entities", "min_votes": 2, "ents_weight": 1},
    assigns=["doc.ents"],
)
class NERVote:
    """Votes over the span groups `votes_keys` and the current `doc.ents` (the NER that ran on
    the whole report), which counts `ents_weight` times."""

    def __init__(self, nlp: Language, name: str, votes_keys: List[str], rules_key: str, min_votes: int,
                 ents_weight: int):
        if ents_weight < 1:
            raise ValueError(f"{name}: ents_weight must be 1 or more, not {ents_weight}")
        total = len(votes_keys) + ents_weight
        if min_votes < 1 or min_votes > total:
            raise ValueError(f"{name}: min_votes must be between 1 and {total} "
                             f"(the votes of the NERs), not {min_votes}")
        self.name = name
        self.votes_keys = list(votes_keys)
        self.rules_key = rules_key
        self.min_votes = min_votes
        self.ents_weight = ents_weight

    def __call__(self, doc: Doc) -> Doc:
        rules = _rule_entities(doc, self.rules_key)
        rule_keys = {(s.start, s.end, s.label) for s in rules}
        votes = Counter((e.start, e.end, e.label) for key in self.votes_keys for e in doc.spans.get(key, []))
        for e in doc.ents:
            votes[(e.start, e.end, e.label)] += self.ents_weight
        chosen = sorted(((start, end, -n), label) for (start, end, label), n in votes.items()
                        if n >= self.min_votes and (start, end, label) not in rule_keys)
        # rule entities first: filter_spans keeps the longest, and the earlier of equals;
        # of two labels for the same tokens, the one with more votes comes first
        doc.ents = filter_spans(rules + [Span(doc, start, end, label=label) for (start, end, _), label in chosen])
        return doc


def entity_windows(doc: Doc, rules_key: str, margin: int) -> List[Tuple[int, int]]:
    """Token windows, merged, of `margin` tokens around each entity of `doc.ents` that is
    not a rule entity. A window never cuts a rule entity in two."""
    rules = _rule_entities(doc, rules_key)
    rule_keys = {(s.start, s.end, s.label) for s in rules}
    seeds = [(max(0, e.start - margin), min(len(doc), e.end + margin))
             for e in doc.ents if (e.start, e.end, e.label) not in rule_keys]
    cuts = sorted((s.start, s.end) for s in rules)
    windows: List[Tuple[int, int]] = []
    for start, end in sorted(seeds):
        for c_start, c_end in cuts:  # widen to the rule entities the edges fall in
            if c_start < start < c_end:
                start = c_start
            if c_start < end < c_end:
                end = c_end
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(end, windows[-1][1]))
        else:
            windows.append((start, end))
    return windows


def window_doc(doc: Doc, start: int, end: int, rules_key: str) -> Doc:
    """A Doc of the tokens start..end: the rule entities in it as `doc.ents`, and every span
    group clipped to it (span-feature members read them)."""
    tokens = doc[start:end]
    sub = Doc(doc.vocab, words=[t.text for t in tokens], spaces=[bool(t.whitespace_) for t in tokens])
    for key, group in doc.spans.items():
        sub.spans[key] = [Span(sub, max(s.start, start) - start, min(s.end, end) - start, label=s.label)
                          for s in group if s.start < end and s.end > start]
    sub.ents = filter_spans([s for s in sub.spans.get(rules_key, [])])
    return sub


@Language.factory(
    "meddocan_ner_member",
    default_config={"ner": "", "spans_key": "ner_votes", "rules_key": "rule_entities", "margin": 10,
                    "batch_size": 64},
    assigns=["doc.spans"],
)
class NERMember:
    """Runs the disabled NER component `ner` on the windows around the current `doc.ents`
    (the pipeline's NER) and writes its entities to `doc.spans[spans_key]` for the vote."""

    def __init__(self, nlp: Language, name: str, ner: str, spans_key: str, rules_key: str, margin: int,
                 batch_size: int):
        if margin < 0:
            raise ValueError(f"{name}: margin must be 0 or more tokens, not {margin}")
        self.nlp = nlp
        self.name = name
        self.ner = ner
        self.spans_key = spans_key
        self.rules_key = rules_key
        self.margin = margin
        self.batch_size = batch_size

    def _member(self):
        if self.ner not in self.nlp.component_names:
            raise ValueError(f"{self.name}: the pipeline has no component '{self.ner}' to run as a member")
        if self.ner not in self.nlp.disabled:
            # enabled, it would also run on the whole Doc and overwrite doc.ents
            raise ValueError(f"{self.name}: the member '{self.ner}' must be disabled ([nlp] disabled)")
        return self.nlp.get_pipe(self.ner)

    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 64) -> Iterator[Doc]:
        member = self._member()
        for batch in minibatch(docs, size=batch_size):
            windows = [entity_windows(doc, self.rules_key, self.margin) for doc in batch]
            subs = [window_doc(doc, start, end, self.rules_key)
                    for doc, doc_windows in zip(batch, windows) for start, end in doc_windows]
            predicted = iter(member.pipe(subs, batch_size=self.batch_size))
            for doc, doc_windows in zip(batch, windows):
                found = []
                for start, _ in doc_windows:
                    found.extend(Span(doc, start + e.start, start + e.end, label=e.label)
                                 for e in next(predicted).ents)
                doc.spans[self.spans_key] = found
                yield doc
