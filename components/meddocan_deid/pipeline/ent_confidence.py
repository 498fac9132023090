"""`meddocan_ent_confidence`, last in the pipeline: the calibrated confidence of each entity the
NER found, and the NER's near misses that no entity covers.

Reads `doc.ents` and the NER's span groups `<ner>_confidence` (each entity's probability under
the model) and `<ner>_near_misses` (pipeline/greedy_ner.py). An entity of `doc.ents` takes the
probability of the NER's entity at its offsets, else of the NER entity it overlaps most (a
post-NER component cut or stretched it); an entity no NER entity overlaps (a rule's) has none.
The probability goes through the calibration (isotonic, fitted on dev by
scripts/calibrate.py: points (raw, share correct), interpolated; without one the
probability is given as it is). Writes `doc.spans["ent_confidence"]` (the entities, with
`attrs["scores"]` and `attrs["raw"]`) and `doc.spans["near_misses"]` (with `attrs["probs"]`);
never changes `doc.ents`. The calibration is saved with the pipeline (`calibration.jsonl`).
"""

from bisect import bisect_left
from collections.abc import Sequence

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from .serialize import SerializedState

CONFIDENCE_KEY = "ent_confidence"
NEAR_MISSES_KEY = "near_misses"


def check_calibration(points: Sequence[dict]) -> list[dict]:
    """Points {"x", "y"} with x and y in [0, 1], x increasing and y not decreasing."""
    clean: list[dict] = []
    for i, p in enumerate(points):
        if not isinstance(p, dict) or set(p) != {"x", "y"}:
            raise ValueError(f"calibration point {i}: expected {{'x': ..., 'y': ...}}")
        x, y = float(p["x"]), float(p["y"])
        if not (0 <= x <= 1 and 0 <= y <= 1):
            raise ValueError(f"calibration point {i}: x and y must be within [0, 1]")
        if clean and (x <= clean[-1]["x"] or y < clean[-1]["y"]):
            raise ValueError(f"calibration point {i}: x must increase and y must not decrease")
        clean.append({"x": x, "y": y})
    return clean


def interpolate(points: Sequence[dict], x: float) -> float:
    """The calibrated value at x: linear between points, flat beyond the ends."""
    if not points:
        return x
    xs = [p["x"] for p in points]
    i = bisect_left(xs, x)
    if i == 0:
        return points[0]["y"]
    if i == len(points):
        return points[-1]["y"]
    a, b = points[i - 1], points[i]
    return a["y"] + (b["y"] - a["y"]) * (x - a["x"]) / (b["x"] - a["x"])


def _best_overlap(ent: Span, group, probs: Sequence[float]) -> float | None:
    best, best_len = None, 0
    for span, p in zip(group, probs):
        if span.start == ent.start and span.end == ent.end:
            return p
        overlap = min(span.end, ent.end) - max(span.start, ent.start)
        if overlap > best_len:
            best, best_len = p, overlap
    return best


@Language.factory(
    "meddocan_ent_confidence",
    default_config={"ner_name": "ner"},
    assigns=["doc.spans"],
)
class EntityConfidence(SerializedState):
    """The calibrated confidence of the NER's entities of `doc.ents` and the NER's near misses
    (see the module's docstring)."""

    state_files = {"calibration": "calibration.jsonl"}

    def __init__(self, nlp: Language, name: str, *, ner_name: str):
        self.name = name
        self.ner_name = ner_name
        self.calibration: list[dict] = []

    def get_state(self):
        return {"calibration": self.calibration}

    def set_state(self, state):
        self.calibration = check_calibration(list(state.get("calibration", [])))

    def calibrate(self, raw: float) -> float:
        return interpolate(self.calibration, raw)

    def __call__(self, doc: Doc) -> Doc:
        group = doc.spans.get(f"{self.ner_name}_confidence")
        probs = list(group.attrs.get("probs", [])) if group is not None else []
        spans, raw = [], []
        if group is not None:
            for ent in doc.ents:
                p = _best_overlap(ent, group, probs)
                if p is not None:
                    spans.append(ent)
                    raw.append(p)
        doc.spans[CONFIDENCE_KEY] = SpanGroup(
            doc,
            name=CONFIDENCE_KEY,
            spans=spans,
            attrs={"scores": [self.calibrate(p) for p in raw], "raw": raw},
        )
        near_group = doc.spans.get(f"{self.ner_name}_near_misses")
        near, near_probs = [], []
        if near_group is not None:
            covered = {i for ent in doc.ents for i in range(ent.start, ent.end)}
            for span, p in zip(near_group, near_group.attrs.get("probs", [])):
                if span.start not in covered:
                    near.append(span)
                    near_probs.append(p)
        doc.spans[NEAR_MISSES_KEY] = SpanGroup(
            doc, name=NEAR_MISSES_KEY, spans=near, attrs={"probs": near_probs}
        )
        return doc


def entity_confidence(doc: Doc) -> dict[tuple[int, int], float]:
    """(start_char, end_char) -> calibrated confidence of the entities that have one."""
    group = doc.spans.get(CONFIDENCE_KEY)
    if group is None:
        return {}
    return {
        (s.start_char, s.end_char): float(v) for s, v in zip(group, group.attrs.get("scores", []))
    }
