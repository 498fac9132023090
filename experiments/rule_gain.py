"""What a change of the rule patterns adds on a BRAT split: the rule-only pipeline
(configs/pipeline.cfg without the trained tok2vec + NER) with the previous pattern files
against the current ones. Prints counts only, never report text.

    git show HEAD~3:configs/patterns/phi_rules.jsonl > /tmp/old_rules.jsonl
    python experiments/rule_gain.py assets/meddocan/corpus/dev/brat \
        --before-rules /tmp/old_rules.jsonl --before-institutions /dev/null \
        --gazetteer ../shared/meddocan/gazetteer

An added entity (in the current output, not in the previous one) is `exact` (a gold entity
with the same span and label), `overlap` (it overlaps a gold entity) or `false`; `lost`
counts the previous output's entities that are gone.
"""

from collections import Counter
from pathlib import Path

import typer

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid.brat import read_brat_dir
from meddocan_deid.pipeline.rules_only import build_rule_pipeline

ROOT = Path(__file__).resolve().parent.parent
PATTERNS = ROOT / "configs" / "patterns"


def rule_pipeline(rules: Path, institutions: Path, gazetteer: Path | None):
    return build_rule_pipeline(
        ROOT / "configs" / "pipeline.cfg",
        PATTERNS,
        {
            "paths.rule_patterns": str(rules),
            "paths.institution_patterns": str(institutions),
            "paths.gazetteer": str(gazetteer) if gazetteer else "",
        },
    )


def main(
    brat_dir: Path = typer.Argument(..., help="a BRAT folder (.txt + .ann)"),
    before_rules: Path = typer.Option(..., help="the previous phi_rules.jsonl"),
    before_institutions: Path = typer.Option(
        ..., help="the previous institutions.jsonl (an empty file if none)"
    ),
    gazetteer: Path | None = typer.Option(
        None, help="the task gazetteer folder (towns after a cue)"
    ),
):
    before = rule_pipeline(before_rules, before_institutions, gazetteer)
    after = rule_pipeline(PATTERNS / "phi_rules.jsonl", PATTERNS / "institutions.jsonl", gazetteer)
    counts: Counter = Counter()
    by_label: Counter = Counter()
    docs = 0
    for doc in read_brat_dir(brat_dir):
        docs += 1
        old = {(e.label_, e.start_char, e.end_char) for e in before(doc.text).ents}
        new = {(e.label_, e.start_char, e.end_char) for e in after(doc.text).ents}
        gold = set(doc.entities)
        for label, start, end in new - old:
            if (label, start, end) in gold:
                kind = "exact"
            elif any(s < end and start < e for _, s, e in gold):
                kind = "overlap"
            else:
                kind = "false"
            counts[kind] += 1
            by_label[(label, kind)] += 1
        counts["lost"] += len(old - new)
    added = counts["exact"] + counts["overlap"] + counts["false"]
    typer.echo(
        f"reports {docs}: added {added} (exact gold {counts['exact']}, overlapping gold "
        f"{counts['overlap']}, false {counts['false']}); lost {counts['lost']}"
    )
    for (label, kind), n in sorted(by_label.items()):
        typer.echo(f"  {label:<32}{kind:<8}{n:>5}")


if __name__ == "__main__":
    typer.run(main)
