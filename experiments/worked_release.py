"""A worked release: invented reports (experiments/invented_reports.py) de-identified, a sample
of them marked from gold by a script standing in for the reviewer, the estimate and its bounds
printed beside the true leak rate of the whole run, computed from gold.

    PYTHONPATH=components python experiments/worked_release.py WORK_DIR --model PIPELINE \
        [--n 60] [--seed 17] [--policy policy.toml] [--order]

WORK_DIR holds `in/` and `gold.jsonl` (from invented_reports.py); the run writes WORK_DIR/out,
WORK_DIR/private and WORK_DIR/sample (a run already there is reused). `--order` puts the
sample in the model's review order (least certain first) and prints where the reports with PHI
left stand in it. Prints counts and rates only.
"""

import argparse
import json
import os
from pathlib import Path

from meddocan_deid.brat import read_ann, read_text
from meddocan_deid.deid.policy import load_policy
from meddocan_deid.engine import run
from meddocan_deid.evidence.certify import certify, is_left
from meddocan_deid.evidence.marks import read_marks
from meddocan_deid.evidence.review_order import confidence_order
from meddocan_deid.evidence.sampling import MARKS_FILE, population, write_sample
from meddocan_deid.evidence.targets import ReleaseTargets
from meddocan_deid.pipeline.loading import load_model


def read_gold(path: Path) -> dict[str, list[tuple[str, int, int]]]:
    gold = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        gold[row["id"]] = [tuple(s) for s in row["spans"]]
    return gold


def read_found(private: Path, report_id: str) -> list[tuple[str, int, int]]:
    txt = private / f"{report_id}.txt"
    return list(read_ann(txt.with_suffix(".ann"), read_text(txt)))


def mark_from_gold(sample: Path, gold: dict) -> None:
    """The reviewer's stand-in: found spans that are not gold are `not_phi`, gold spans not
    found as such are `missed`, so that the truth of each report is its gold."""
    lines = []
    for line in (sample / MARKS_FILE).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        detected = [tuple(s) for s in row["detected"]]
        truth = gold[row["id"]]
        row["not_phi"] = [list(s) for s in detected if s not in truth]
        row["missed"] = [list(s) for s in truth if s not in detected]
        row["reviewed"] = True
        lines.append(json.dumps(row, ensure_ascii=False))
    (sample / MARKS_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--model", required=True)
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--policy", type=Path)
    parser.add_argument("--order", action="store_true")
    args = parser.parse_args()
    work = args.work
    out, private, sample = work / "out", work / "private", work / "sample"
    if not (out / "run_report.json").is_file():
        report = run(
            work / "in", out, "surrogate", os.urandom(32), model=args.model, private_dir=private
        )
        print(f"run: {report['reports']['written']} reports written, {report['seconds']:.0f}s")
    gold = read_gold(work / "gold.jsonl")
    order = confidence_order(load_model(args.model)) if args.order else None
    record = write_sample(out, private, sample, n=args.n, seed=args.seed, order=order)
    mark_from_gold(sample, gold)
    targets = (load_policy(args.policy).release if args.policy else None) or ReleaseTargets()
    result = certify(read_marks(sample), targets)
    print(f"sample of {result.reports} (seed {args.seed}), marked from gold:")
    for line in result.lines():
        print("  " + line)
    # the truth: every report of the run against its gold
    ids = population(out, private)
    leaking = mentions = left = 0
    for report_id in ids:
        found = read_found(private, report_id)
        n_left = sum(is_left(s, found) for s in gold[report_id])
        mentions += len(gold[report_id])
        left += n_left
        leaking += n_left > 0
    print(
        f"true rates over all {len(ids)} reports (gold): reports with PHI left {leaking} "
        f"({leaking / len(ids):.2%}); mentions left {left} of {mentions} ({left / mentions:.2%})"
    )
    if args.order:
        positions = [
            i + 1
            for i, m in enumerate(read_marks(sample))
            if any(is_left(s, m.detected) for s in m.truth)
        ]
        print(
            f"review order (least certain first): reports with PHI left at {positions} of "
            f"{record['n']}"
        )
    covered = result.report_bound >= leaking / len(ids)
    print(f"the sample's upper bound {'covers' if covered else 'does NOT cover'} the true rate")


if __name__ == "__main__":
    main()
