"""An ensemble of NERs that vote on each entity (configs/pipeline_ensemble.cfg).

Each member NER predicts around the rule entities, as the single NER of the default
pipeline does. `meddocan_ner_snapshot`, after a member, copies the member's entities to
`doc.spans[spans_key]` and puts `doc.ents` back to the rule entities, so that the next
member starts from the same state. `meddocan_ner_vote`, after the last member, keeps
each entity (same offsets and label) predicted by at least `min_votes` members and
writes them, with the rule entities, to `doc.ents`. With three members, `min_votes = 2`
is a majority vote (fewer false positives), 1 the union (fewer leaks).
"""
from collections import Counter
from typing import List

from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.util import filter_spans


def _rule_entities(doc: Doc, rules_key: str) -> List[Span]:
    return list(doc.spans.get(rules_key, []))


@Language.factory(
    "meddocan_ner_snapshot",
    default_config={"spans_key": "ner_votes", "rules_key": "rule_entities"},
    assigns=["doc.ents", "doc.spans"],
)
class NERSnapshot:
    def __init__(self, nlp: Language, name: str, spans_key: str, rules_key: str):
        self.name = name
        self.spans_key = spans_key
        self.rules_key = rules_key

    def __call__(self, doc: Doc) -> Doc:
        doc.spans[self.spans_key] = list(doc.ents)
        doc.ents = filter_spans(_rule_entities(doc, self.rules_key))
        return doc


@Language.factory(
    "meddocan_ner_vote",
    default_config={"votes_keys": ["ner_votes"], "rules_key": "rule_entities", "min_votes": 2},
    assigns=["doc.ents"],
)
class NERVote:
    """Votes over the span groups `votes_keys` and the current `doc.ents` (the last member)."""

    def __init__(self, nlp: Language, name: str, votes_keys: List[str], rules_key: str, min_votes: int):
        if min_votes < 1 or min_votes > len(votes_keys) + 1:
            raise ValueError(f"{name}: min_votes must be between 1 and {len(votes_keys) + 1} "
                             f"(the number of voting NERs), not {min_votes}")
        self.name = name
        self.votes_keys = list(votes_keys)
        self.rules_key = rules_key
        self.min_votes = min_votes

    def __call__(self, doc: Doc) -> Doc:
        rules = _rule_entities(doc, self.rules_key)
        rule_keys = {(s.start, s.end, s.label) for s in rules}
        members = [list(doc.spans.get(key, [])) for key in self.votes_keys] + [list(doc.ents)]
        votes = Counter((e.start, e.end, e.label) for member in members for e in member)  # ents never repeat
        chosen = [Span(doc, start, end, label=label) for (start, end, label), n in votes.items()
                  if n >= self.min_votes and (start, end, label) not in rule_keys]
        # rule entities first: filter_spans keeps the longest, and the earlier of equals
        doc.ents = filter_spans(rules + sorted(chosen, key=lambda s: (s.start, s.end)))
        return doc
