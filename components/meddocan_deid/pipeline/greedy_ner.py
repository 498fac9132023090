"""`meddocan_ner`: spaCy's `ner` with its greedy decoding done for all states at once.

The model, training, scoring and saved form are spaCy's `EntityRecognizer`'s. Only greedy
prediction differs in how it runs, not in what it gives: spaCy's compiled loop checks every
action of every state one at a time, and each check takes the GIL (Cython exception checks in
`StateC`), so with 29 labels (117 actions) the loop, not the network, was most of the NER's
time (docs/experiments/2026-11-27-speed.md). Here each step checks the actions of all states with
numpy: the same features (`set_context_tokens` for NER: the next word, the entity's first word, the
previous word), the same precomputed hidden layer and output layer of spaCy's step model, the same
unseen-class floor, the same validity rules of `BiluoPushDown` (preset entities from the rules,
sentence starts, whitespace) and the same first-best choice; then `set_annotations` as
`BiluoPushDown.set_annotations`. A beam, a GPU, one maxout piece or extra state tokens keep
spaCy's decoding (`uses_greedy_decoding`).

Confidence: each entity's probability under the model, the product of the softmax (over the
valid actions, as the parser is trained) of its chosen actions, B to L or U; and the near misses,
tokens the model left outside while giving the entity actions at least `NEAR_MISS` of the
probability. `set_annotations` keeps both in `doc.spans["<name>_confidence"]` and
`doc.spans["<name>_near_misses"]`, each with its probabilities in `attrs["probs"]`
(pipeline/ent_confidence.py calibrates them).
"""

from collections.abc import Sequence

import numpy
from spacy.language import Language
from spacy.pipeline import EntityRecognizer
from spacy.pipeline.ner import DEFAULT_NER_MODEL
from spacy.tokens import Doc, Span, SpanGroup
from thinc.api import NumpyOps, set_dropout_rate

FACTORY = "meddocan_ner"
# spaCy's BILUO move numbering (spacy/pipeline/_parser_internals/ner.pyx)
BEGIN, IN, LAST, UNIT, OUT = 1, 2, 3, 4, 5
MOVE_OF_LETTER = {"B": BEGIN, "I": IN, "L": LAST, "U": UNIT, "O": OUT}
# token.ent_iob: 0 missing, 1 inside, 2 outside, 3 begin
IOB_I, IOB_O, IOB_B = 1, 2, 3

Entity = tuple[int, int, int]  # start, end, label hash
NEAR_MISS = 0.2  # an outside token whose entity actions had at least this probability


class DocEntities(list):
    """The entities of one doc (a list of Entity) with their probabilities (`probs`, aligned)
    and the near misses (`near`: (token, label hash, probability of an entity there))."""

    def __init__(self, entities=(), probs=(), near=()):
        super().__init__(entities)
        self.probs = list(probs)
        self.near = list(near)


class GreedyEntityRecognizer(EntityRecognizer):
    """spaCy's EntityRecognizer whose greedy `predict` returns, per doc, the entities
    (start, end, label) that spaCy's own decoding gives, and whose `set_annotations` sets
    them as spaCy's does. Everything else is inherited."""

    def predict(self, docs):
        if isinstance(docs, Doc):
            docs = [docs]
        if not self.uses_greedy_decoding():
            return super().predict(docs)
        return decode_greedy(self, docs)

    def uses_greedy_decoding(self) -> bool:
        """The cases decode_greedy reproduces: greedy, on CPU, the NER's three state features
        (not extra_state_tokens) and maxout hidden units (with one piece the step model's
        Python path applies a ReLU that spaCy's compiled loop does not)."""
        if self.cfg["beam_width"] != 1 or not isinstance(self.model.ops, NumpyOps):
            return False
        lower = self.model.get_ref("lower")
        return (
            all(lower.has_dim(d) is True for d in ("nF", "nP"))
            and lower.get_dim("nF") == 3
            and lower.get_dim("nP") >= 2
        )

    def set_annotations(self, docs, states_or_beams):
        if not self.uses_greedy_decoding():
            return super().set_annotations(docs, states_or_beams)
        for doc, entities in zip(docs, states_or_beams):
            spans = [
                Span(doc, start, end, label=label, kb_id=doc[start].ent_kb_id)
                for start, end, label in entities
            ]
            if isinstance(entities, DocEntities):
                keep_confidence(doc, self.name, spans, entities)
            doc.set_ents(spans, default="unmodified")
            # as BiluoPushDown: tokens left missing become outside (blocked ones stay); only the
            # IOB changes, as there (a type set without an IOB is kept)
            iob = doc.to_array(["ENT_IOB"])
            if (iob == 0).any():
                iob[iob == 0] = IOB_O
                doc.from_array(["ENT_IOB"], iob)
            for hook in self.postprocesses:
                hook(doc)


class ActionTable:
    """The model's actions grouped by move: for each move, its columns (a slice: spaCy adds
    actions move by move) and their label hashes."""

    def __init__(self, ner: EntityRecognizer):
        moves, labels = [], []
        for i in range(ner.moves.n_moves):
            name = ner.moves.get_class_name(i)
            moves.append(MOVE_OF_LETTER.get(name[:1], 0))
            labels.append(ner.vocab.strings.add(name[2:]) if len(name) > 2 else 0)
        self.move = numpy.asarray(moves, dtype=numpy.int8)
        self.label = numpy.asarray(labels, dtype=numpy.uint64)
        self.n = len(moves)
        self.columns = {}
        for move in (BEGIN, IN, LAST, UNIT, OUT):
            for labelled in (True, False):
                where = numpy.flatnonzero((self.move == move) & ((self.label != 0) == labelled))
                if where.size:
                    contiguous = where[-1] - where[0] + 1 == where.size
                    cols = slice(int(where[0]), int(where[-1]) + 1) if contiguous else where
                    self.columns[move, labelled] = (cols, self.label[where][None, :])
        # every label with its four moves: a preset entity of another label makes spaCy add it
        by_move = [
            set(self.label[(self.move == m) & (self.label != 0)].tolist())
            for m in (BEGIN, IN, LAST, UNIT)
        ]
        self.complete_labels = set.intersection(*by_move) if by_move else set()


class TokenValidity:
    """Which actions each token of the batch allows, before the state is known: spaCy's
    `Begin/In/Last/Unit/Out.is_valid` (ner.pyx) depend on the state only through whether an
    entity is open and its label, so each token gets its actions for a closed state and for an
    open one (In and Last then also need the open entity's label, checked per step)."""

    def __init__(self, actions: ActionTable, docs: Sequence[Doc]):
        iob, etype, space, next_iob, next_start, last = [], [], [], [], [], []
        for doc in docs:
            if not len(doc):
                continue
            a = doc.to_array(["ENT_IOB", "IS_SPACE", "SENT_START"]).astype(numpy.int64)
            iob.append(a[:, 0])
            etype.append(doc.to_array("ENT_TYPE").astype(numpy.uint64))
            space.append(a[:, 1] != 0)
            # the next token in the doc; past its end, spaCy's empty token (all 0)
            next_iob.append(numpy.append(a[1:, 0], 0))
            next_start.append(numpy.append(a[1:, 2] == 1, False))
            last.append(numpy.arange(len(doc)) == len(doc) - 1)
        self.preset_types = numpy.concatenate(etype)
        p0_type = self.preset_types[:, None]
        p0_iob = numpy.concatenate(iob)
        preset_b = (p0_iob == IOB_B)[:, None]
        preset_i = (p0_iob == IOB_I)[:, None]
        p1_iob = numpy.concatenate(next_iob)[:, None]
        p1_not_start = ~numpy.concatenate(next_start)[:, None]
        p0_not_space = ~numpy.concatenate(space)[:, None]
        more = ~numpy.concatenate(last)[:, None]  # the buffer holds this token and another
        n_tokens = p0_iob.shape[0]
        closed = numpy.zeros((n_tokens, actions.n), dtype=bool)
        opened = numpy.zeros((n_tokens, actions.n), dtype=bool)
        # In, and Last unless the token ends a preset entity: the label must be the open one's
        self.needs_open_label = numpy.zeros((n_tokens, actions.n), dtype=bool)
        if (BEGIN, True) in actions.columns:
            cols, labels = actions.columns[BEGIN, True]
            inside = (labels == p0_type) & (p1_iob == IOB_I)
            free = (p1_iob != IOB_B) & p1_not_start & p0_not_space
            closed[:, cols] = more & ~preset_i & numpy.where(preset_b, inside, free)
        if (IN, True) in actions.columns:
            cols, labels = actions.columns[IN, True]
            in_preset = (p1_iob != 0) & (p1_iob != IOB_O) & (labels == p0_type)
            opened[:, cols] = (
                more
                & ~preset_b
                & (p1_iob != IOB_B)
                & numpy.where(preset_i, in_preset, p1_not_start)
            )
            self.needs_open_label[:, cols] = True
        if (LAST, True) in actions.columns:
            cols, labels = actions.columns[LAST, True]
            ends_preset = preset_i & (p1_iob != IOB_I)
            opened[:, cols] = numpy.where(ends_preset, labels == p0_type, p1_iob != IOB_I)
            self.needs_open_label[:, cols] = ~ends_preset
        if (UNIT, True) in actions.columns:
            cols, labels = actions.columns[UNIT, True]
            closed[:, cols] = (p1_iob != IOB_I) & numpy.where(
                preset_b, labels == p0_type, p0_not_space
            )
        if (UNIT, False) in actions.columns:  # a preset token blocked from any entity
            cols, _ = actions.columns[UNIT, False]
            closed[:, cols] = (p0_type == 0) & preset_b
        if (OUT, False) in actions.columns:
            cols, _ = actions.columns[OUT, False]
            closed[:, cols] = ~preset_b & ~preset_i
        self.closed, self.opened = closed, opened

    def at(
        self,
        actions: ActionTable,
        here: numpy.ndarray,
        is_open: numpy.ndarray,
        open_label: numpy.ndarray,
    ) -> numpy.ndarray:
        """(states x actions) validity of states at these token positions."""
        label_ok = ~self.needs_open_label[here] | (actions.label[None, :] == open_label[:, None])
        return numpy.where(is_open[:, None], self.opened[here] & label_ok, self.closed[here])


def keep_confidence(doc: Doc, name: str, spans: list[Span], entities: DocEntities) -> None:
    """The entities' probabilities and the near misses, as span groups of `doc` (a blocked
    token's unlabelled unit is no entity: left out)."""
    labelled = [(span, p) for span, p in zip(spans, entities.probs) if span.label]
    doc.spans[f"{name}_confidence"] = SpanGroup(
        doc,
        name=f"{name}_confidence",
        spans=[span for span, _ in labelled],
        attrs={"probs": [p for _, p in labelled]},
    )
    near = [Span(doc, t, t + 1, label=label) for t, label, _ in entities.near]
    doc.spans[f"{name}_near_misses"] = SpanGroup(
        doc, name=f"{name}_near_misses", spans=near, attrs={"probs": [p for *_, p in entities.near]}
    )


def decode_greedy(ner: EntityRecognizer, docs: Sequence[Doc]) -> list[DocEntities]:
    """The entities of spaCy's greedy decoding, per doc, with their probabilities."""
    entities: list[DocEntities] = [DocEntities() for _ in docs]
    lengths = numpy.asarray([len(doc) for doc in docs], dtype=numpy.int64)
    if not lengths.any():
        return entities
    actions = ActionTable(ner)
    tokens = TokenValidity(actions, docs)
    preset = tokens.preset_types
    if not set(numpy.unique(preset[preset != 0]).tolist()) <= actions.complete_labels:
        ner._ensure_labels_are_added(docs)  # a preset label the model lacks: spaCy adds it
        actions = ActionTable(ner)
        tokens = TokenValidity(actions, docs)
    set_dropout_rate(ner.model, 0.0)
    step_model = ner.model.predict(docs)
    unseen = step_model._class_mask == 0
    offsets = numpy.concatenate(([0], numpy.cumsum(lengths)[:-1]))
    is_open = numpy.zeros(len(docs), dtype=bool)
    open_label = numpy.zeros(len(docs), dtype=numpy.uint64)
    open_start = numpy.zeros(len(docs), dtype=numpy.int64)
    open_logp = numpy.zeros(len(docs), dtype=numpy.float64)  # log-probability of the open entity
    # the labelled entity actions (a blocked token's unlabelled Unit is no entity)
    entity_cols = (actions.move != OUT) & (actions.move != 0) & (actions.label != 0)
    finished = lengths == 0
    ids = numpy.full((len(docs), 3), -1, dtype="i")
    for t in range(int(lengths.max())):
        states = numpy.flatnonzero(~finished & (lengths > t))
        if not states.size:
            break
        here = offsets[states] + t
        opened = is_open[states]
        step_ids = ids[: states.size]
        step_ids[:, 0] = here
        step_ids[:, 1] = numpy.where(opened, offsets[states] + open_start[states], -1)
        step_ids[:, 2] = numpy.where(opened, here - 1, -1)
        hidden = step_model.state2vec.predict(step_ids)
        if step_model.vec2scores is not None:
            scores = step_model.vec2scores.predict(hidden)
        else:
            scores = numpy.array(hidden, dtype="f")
        if unseen.any():
            scores[:, unseen] = numpy.nanmin(scores)
        valid = tokens.at(actions, here, opened, open_label[states])
        scores[~valid] = -numpy.inf
        best = scores.argmax(axis=1)
        ok = valid[numpy.arange(states.size), best]
        if not ok.all():
            # every valid score -inf: spaCy takes the first valid action; none valid: spaCy
            # forces the state to its end
            has_valid = valid.any(axis=1)
            best = numpy.where(ok | ~has_valid, best, valid.argmax(axis=1))
            ok = has_valid
            finished[states[~ok]] = True
        chosen = numpy.where(ok, actions.move[best], 0)
        chosen_label = actions.label[best]
        # the softmax over the valid actions (the parser's training objective), in place: the
        # chosen action is the top one, so its log-probability is -log(sum of exp(score - top))
        top = numpy.where(ok, scores[numpy.arange(states.size), best], 0.0)
        scores -= top[:, None].astype(scores.dtype)
        numpy.exp(scores, out=scores)  # invalid actions (-inf) become 0
        total = scores.sum(axis=1)
        step_logp = numpy.where(ok & (total > 0), -numpy.log(numpy.where(total > 0, total, 1)), 0)
        # an outside step is a near miss when the other actions, the entity ones, hold at
        # least NEAR_MISS of the probability: total >= 1 / (1 - NEAR_MISS); exact sum then
        for k in numpy.flatnonzero((chosen == OUT) & (total >= 1 / (1 - NEAR_MISS))).tolist():
            entity_p = float(scores[k, entity_cols].sum() / total[k])
            if entity_p >= NEAR_MISS:
                cols = numpy.flatnonzero(entity_cols)
                label = int(actions.label[cols[int(scores[k, cols].argmax())]])
                entities[int(states[k])].near.append((t, label, entity_p))
        for k in numpy.flatnonzero((chosen == LAST) | (chosen == UNIT)).tolist():
            doc_i = int(states[k])
            if chosen[k] == LAST:
                entities[doc_i].append((int(open_start[doc_i]), t + 1, int(open_label[doc_i])))
                logp = open_logp[doc_i] + step_logp[k]
            else:
                entities[doc_i].append((t, t + 1, int(chosen_label[k])))
                logp = step_logp[k]
            entities[doc_i].probs.append(float(numpy.exp(logp)))
        open_logp[states[chosen == IN]] += step_logp[chosen == IN]
        open_logp[states[chosen == BEGIN]] = step_logp[chosen == BEGIN]
        begins = chosen == BEGIN
        is_open[states[begins]] = True
        open_label[states[begins]] = chosen_label[begins]
        open_start[states[begins]] = t
        is_open[states[chosen == LAST]] = False
    step_model.clear_memory()
    return entities


@Language.factory(
    FACTORY,
    assigns=["doc.ents", "token.ent_iob", "token.ent_type"],
    default_config={
        "moves": None,
        "update_with_oracle_cut_size": 100,
        "model": DEFAULT_NER_MODEL,
        "incorrect_spans_key": None,
        "scorer": {"@scorers": "spacy.ner_scorer.v1"},
    },
    default_score_weights={"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None},
)
def make_greedy_ner(
    nlp: Language,
    name: str,
    *,
    model,
    moves,
    update_with_oracle_cut_size: int,
    incorrect_spans_key: str | None,
    scorer,
) -> GreedyEntityRecognizer:
    return GreedyEntityRecognizer(
        nlp.vocab,
        model,
        name=name,
        moves=moves,
        update_with_oracle_cut_size=update_with_oracle_cut_size,
        incorrect_spans_key=incorrect_spans_key,
        scorer=scorer,
    )
