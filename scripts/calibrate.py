"""Calibrate the NER entities' confidence on dev, print the reliability diagram (as a table)
and the expected calibration error, and the recall a Presidio `score_threshold` keeps.

    python scripts/calibrate.py PIPELINE DEV_BRAT [--save OUT_PIPELINE] [--limit N]

`spacy project run assemble` runs it on MEDDOCAN dev and saves the calibration into the
assembled pipeline.

An entity is correct when it overlaps a gold PHI span (de-identification's sense: what a
threshold would drop is PHI). The calibration is isotonic (pool adjacent violators) on the raw
probability (pipeline/greedy_ner.py); the calibrated figures printed are cross-fitted (two
folds of documents: each half scored by the fit on the other) so that they are not measured on
what they were fitted to; the calibration saved is fitted on the whole of dev. The recall is
the share of gold PHI mentions wholly covered by entities scored at or above the threshold,
each entity scored as the Presidio recognizer scores it. Prints counts and rates only.
"""

import argparse
from pathlib import Path

import spacy

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid.brat import read_brat_dir
from meddocan_deid.evidence.certify import is_left
from meddocan_deid.pipeline.ent_confidence import CONFIDENCE_KEY, check_calibration, interpolate
from meddocan_deid.presidio_entities import SOURCE_SCORES, entity_sources

BINS = 10
THRESHOLDS = (None, 0.4, 0.5, 0.6, 0.8)


def isotonic(pairs: list[tuple[float, int]]) -> list[dict]:
    """Calibration points of (raw, correct) pairs: pool adjacent violators."""
    blocks: list[list[float]] = []  # [sum x, sum y, n]
    for x, y in sorted(pairs):
        blocks.append([x, float(y), 1.0])
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            last = blocks.pop()
            for i in range(3):
                blocks[-1][i] += last[i]
    points: list[dict] = []
    for sx, sy, n in blocks:
        x, y = sx / n, sy / n
        if points and x <= points[-1]["x"]:
            continue
        points.append({"x": x, "y": max(y, points[-1]["y"] if points else 0.0)})
    return check_calibration(points)


def reliability(pairs: list[tuple[float, int]]) -> tuple[list[tuple], float]:
    """Rows (bin, n, mean confidence, share correct) and the expected calibration error."""
    rows, ece, total = [], 0.0, len(pairs)
    for b in range(BINS):
        low, high = b / BINS, (b + 1) / BINS
        inside = [(p, y) for p, y in pairs if low <= p < high or (b == BINS - 1 and p == 1.0)]
        if not inside:
            continue
        conf = sum(p for p, _ in inside) / len(inside)
        acc = sum(y for _, y in inside) / len(inside)
        rows.append((f"{low:.1f}-{high:.1f}", len(inside), conf, acc))
        ece += len(inside) / total * abs(acc - conf)
    return rows, ece


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("dev", type=Path)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="the first N documents (0: all)")
    args = parser.parse_args()
    nlp = spacy.load(args.pipeline)
    if "ent_confidence" not in nlp.pipe_names:
        nlp.add_pipe("meddocan_ent_confidence", name="ent_confidence", last=True)
    docs = list(read_brat_dir(args.dev))
    if args.limit:
        docs = docs[: args.limit]
    records = []  # per doc: (entities [(start, end, source, raw or None)], gold spans)
    for gold_doc, doc in zip(docs, nlp.pipe(d.text for d in docs)):
        group = doc.spans[CONFIDENCE_KEY]
        raw = {(s.start_char, s.end_char): r for s, r in zip(group, group.attrs["raw"])}
        found = [(s, e, src, raw.get((s, e))) for _, s, e, src in entity_sources(doc)]
        records.append((found, [(lb, s, e) for lb, s, e in gold_doc.entities]))

    def correct(s: int, e: int, gold) -> int:
        return int(any(gs < e and ge > s for _, gs, ge in gold))

    folds: list[list[tuple[float, int]]] = [[], []]
    for i, (found, gold) in enumerate(records):
        folds[i % 2] += [(r, correct(s, e, gold)) for s, e, _, r in found if r is not None]
    raw_pairs = folds[0] + folds[1]
    fits = [isotonic(folds[1]), isotonic(folds[0])]  # each fold scored by the other's fit
    cross = [(interpolate(fits[k], r), y) for k in (0, 1) for r, y in folds[k]]
    print(f"dev: {len(docs)} documents, {len(raw_pairs)} NER entities with a probability")
    for name, pairs in (("raw probability", raw_pairs), ("calibrated (cross-fitted)", cross)):
        rows, ece = reliability(pairs)
        print(f"\nreliability, {name}: ECE {ece:.4f}")
        print("| bin | entities | mean confidence | share correct |")
        print("|---|---:|---:|---:|")
        for b, n, conf, acc in rows:
            print(f"| {b} | {n} | {conf:.3f} | {acc:.3f} |")
    calibration = isotonic(raw_pairs)
    flat = [(r, y) for r, y in raw_pairs]
    print(
        f"\ncalibration fitted on all of dev: {len(calibration)} points; old fixed NER score 0.75"
    )
    old_ece = sum(abs(y - 0.75) for _, y in flat) / len(flat) if flat else 0.0
    print(f"the old fixed score's calibration error (|correct - 0.75|, averaged): {old_ece:.4f}")

    def score(source: str, r: float | None) -> float:
        return interpolate(calibration, r) if r is not None else SOURCE_SCORES[source]

    def old_score(source: str, r: float | None) -> float:
        return SOURCE_SCORES[source]

    print("\nrecall of gold PHI mentions kept at a Presidio score_threshold:")
    print("| threshold | recall (model confidence) | recall (fixed source scores) |")
    print("|---|---:|---:|")
    n_gold = sum(len(g) for _, g in records)
    for t in THRESHOLDS:
        kept = []
        for scorer in (score, old_score):
            covered = 0
            for found, gold in records:
                spans = [("X", s, e) for s, e, src, r in found if t is None or scorer(src, r) >= t]
                covered += sum(not is_left(g, spans) for g in gold)
            kept.append(covered / n_gold)
        print(f"| {t if t is not None else 'none'} | {kept[0]:.4f} | {kept[1]:.4f} |")
    if args.save is not None:
        nlp.get_pipe("ent_confidence").set_state({"calibration": calibration})
        nlp.to_disk(args.save)
        print(f"\npipeline with the calibration -> {args.save}")


if __name__ == "__main__":
    main()
