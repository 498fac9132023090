"""An ensemble of NERs that vote on each entity (configs/pipeline_ensemble.cfg).

The pipeline's NER runs on the whole Doc. The other members are disabled NER components
that `meddocan_ner_members` runs only on windows of `margin` tokens around the entities
the first NER found; it writes each member's entities to `doc.spans[<member name>]`. A
vote needs the other members only there: elsewhere they could add an entity only if all
of them agreed. On dev, 2 of 5,708 entities differed from running every member on the
whole Doc, and each member costs about a seventh of the first NER. Each member predicts
around the rule entities, as the single NER of the default pipeline does.

`meddocan_ner_vote`, after the members, keeps each entity (same offsets and label) that
gets at least `min_votes` votes, the NER on `doc.ents` counting `ents_weight` times, and
writes them, with the rule entities, to `doc.ents`.
"""

from collections import Counter
from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans, minibatch


def _rule_entities(doc: Doc, rules_key: str) -> list[Span]:
    return list(doc.spans.get(rules_key, []))


@Language.factory(
    "meddocan_ner_vote",
    default_config={
        "votes_keys": ["ner_votes"],
        "rules_key": "rule_entities",
        "min_votes": 2,
        "ents_weight": 1,
    },
    assigns=["doc.ents"],
)
class NERVote:
    """Votes over the span groups `votes_keys` and the current `doc.ents` (the NER that ran on
    the whole report), which counts `ents_weight` times."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        votes_keys: list[str],
        rules_key: str,
        min_votes: int,
        ents_weight: int,
    ):
        if ents_weight < 1:
            raise ValueError(f"{name}: ents_weight must be 1 or more, not {ents_weight}")
        total = len(votes_keys) + ents_weight
        if min_votes < 1 or min_votes > total:
            raise ValueError(
                f"{name}: min_votes must be between 1 and {total} "
                f"(the votes of the NERs), not {min_votes}"
            )
        self.name = name
        self.votes_keys = list(votes_keys)
        self.rules_key = rules_key
        self.min_votes = min_votes
        self.ents_weight = ents_weight

    def __call__(self, doc: Doc) -> Doc:
        rules = _rule_entities(doc, self.rules_key)
        rule_keys = {(s.start, s.end, s.label) for s in rules}
        votes = Counter(
            (e.start, e.end, e.label) for key in self.votes_keys for e in doc.spans.get(key, [])
        )
        for e in doc.ents:
            votes[(e.start, e.end, e.label)] += self.ents_weight
        chosen = sorted(
            ((start, end, -n), label)
            for (start, end, label), n in votes.items()
            if n >= self.min_votes and (start, end, label) not in rule_keys
        )
        # rule entities first: filter_spans keeps the longest, and the earlier of equals;
        # of two labels for the same tokens, the one with more votes comes first
        doc.ents = filter_spans(
            rules + [Span(doc, start, end, label=label) for (start, end, _), label in chosen]
        )
        return doc


def entity_windows(doc: Doc, rules_key: str, margin: int) -> list[tuple[int, int]]:
    """Token windows, merged, of `margin` tokens around each entity of `doc.ents` that is
    not a rule entity. A window never cuts a rule entity in two."""
    rules = _rule_entities(doc, rules_key)
    rule_keys = {(s.start, s.end, s.label) for s in rules}
    seeds = [
        (max(0, e.start - margin), min(len(doc), e.end + margin))
        for e in doc.ents
        if (e.start, e.end, e.label) not in rule_keys
    ]
    cuts = sorted((s.start, s.end) for s in rules)
    windows: list[tuple[int, int]] = []
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
    sub = Doc(
        doc.vocab, words=[t.text for t in tokens], spaces=[bool(t.whitespace_) for t in tokens]
    )
    for key, group in doc.spans.items():
        sub.spans[key] = [
            Span(sub, max(s.start, start) - start, min(s.end, end) - start, label=s.label)
            for s in group
            if s.start < end and s.end > start
        ]
    sub.ents = filter_spans([s for s in sub.spans.get(rules_key, [])])
    return sub


@Language.factory(
    "meddocan_ner_members",
    default_config={"ners": [], "rules_key": "rule_entities", "margin": 10, "batch_size": 64},
    assigns=["doc.spans"],
)
class NERMembers:
    """Runs each disabled NER component of `ners` on the windows around the current
    `doc.ents` (the pipeline's NER) and writes its entities to `doc.spans[<its name>]` for
    the vote. The windows are cut once and each member starts from their rule entities."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        ners: list[str],
        rules_key: str,
        margin: int,
        batch_size: int,
    ):
        if margin < 0:
            raise ValueError(f"{name}: margin must be 0 or more tokens, not {margin}")
        self.nlp = nlp
        self.name = name
        self.ners = list(ners)
        self.rules_key = rules_key
        self.margin = margin
        self.batch_size = batch_size

    def _member(self, ner: str):
        if ner not in self.nlp.component_names:
            raise ValueError(
                f"{self.name}: the pipeline has no component '{ner}' to run as a member"
            )
        if ner not in self.nlp.disabled:
            # enabled, it would also run on the whole Doc and overwrite doc.ents
            raise ValueError(f"{self.name}: the member '{ner}' must be disabled ([nlp] disabled)")
        return self.nlp.get_pipe(ner)

    def __call__(self, doc: Doc) -> Doc:
        return next(self.pipe([doc]))

    def pipe(self, docs: Iterable[Doc], batch_size: int = 64) -> Iterator[Doc]:
        members = [(ner, self._member(ner)) for ner in self.ners]
        for batch in minibatch(docs, size=batch_size):
            windows = [entity_windows(doc, self.rules_key, self.margin) for doc in batch]
            subs = [
                window_doc(doc, start, end, self.rules_key)
                for doc, doc_windows in zip(batch, windows)
                for start, end in doc_windows
            ]
            found: dict[str, list[list[Span]]] = {ner: [[] for _ in batch] for ner in self.ners}
            for ner, member in members:
                for sub in subs:  # back to the rule entities after the previous member
                    sub.ents = filter_spans(list(sub.spans.get(self.rules_key, [])))
                predicted = iter(member.pipe(subs, batch_size=self.batch_size))
                for doc, doc_windows, doc_found in zip(batch, windows, found[ner]):
                    for start, _ in doc_windows:
                        doc_found.extend(
                            Span(doc, start + e.start, start + e.end, label=e.label)
                            for e in next(predicted).ents
                        )
            for i, doc in enumerate(batch):
                for ner in self.ners:
                    doc.spans[ner] = found[ner][i]
                yield doc
