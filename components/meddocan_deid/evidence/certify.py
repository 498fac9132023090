"""The residual-risk estimate of a release from a reviewed sample: the share of reports with
any PHI left in clear and the share of PHI mentions left (by label), each with its exact
one-sided upper bound (Clopper-Pearson), the sample size a target bound needs, and pass or
fail against the policy's `[release]` target.

A true PHI mention is left when some of its characters are covered by no span the run found
(gaps of at most `MAX_GAP` characters between found spans inside it, a separator, count as
covered): a name found in part is a name left. Mentions of one report are not independent,
so the mentions' bound is indicative; the reports' bound is the one a release is judged by.
The bound ignores the finite population (conservative) and treats the stratified,
proportionally allocated sample as self-weighting.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from .binomial import sample_size, upper_bound
from .marks import MarkedReport
from .targets import ReleaseTargets

MAX_GAP = 2
Span = tuple[str, int, int]


def is_left(span: Span, found: Sequence[Span], max_gap: int = MAX_GAP) -> bool:
    """Whether some characters of `span` are outside every found span (small gaps allowed)."""
    _, start, end = span
    covered = sorted((max(s, start), min(e, end)) for _, s, e in found if s < end and e > start)
    at = start
    for s, e in covered:
        if s - at > max_gap or (at == start and s > start):
            return True
        at = max(at, e)
    return at < end


@dataclass
class Certificate:
    confidence: float
    reports: int
    reports_with_phi: int
    report_share: float
    report_bound: float
    mentions: int
    mentions_left: int
    mention_share: float
    mention_bound: float | None
    by_label: dict[str, dict[str, int]]
    target: float
    mention_target: float | None
    passed: bool
    needed_if_clean: int | None  # the sample a clean sample needs to reach the target
    needed_at_rate: int | None  # ... when the run leaks at the rate this sample shows
    strata: dict[str, dict[str, int]] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        pct = f"{self.confidence:.0%}"
        out = [
            f"reports with PHI left: {self.reports_with_phi} of {self.reports} "
            f"({self.report_share:.2%}); one-sided {pct} upper bound {self.report_bound:.2%}",
            f"PHI mentions left: {self.mentions_left} of {self.mentions} "
            f"({self.mention_share:.2%})"
            + (
                f"; one-sided {pct} upper bound {self.mention_bound:.2%}"
                if self.mention_bound is not None
                else ""
            ),
        ]
        for label, c in sorted(self.by_label.items()):
            if c["left"]:
                out.append(f"  {label}: {c['left']} of {c['mentions']} left")
        clean = (
            f"{self.needed_if_clean} reports with none left"
            if self.needed_if_clean is not None
            else "unreachable"
        )
        at_rate = (
            f"{self.needed_at_rate} at the rate seen"
            if self.needed_at_rate is not None
            else "unreachable at the rate seen"
        )
        out.append(f"sample needed for an upper bound of {self.target:.2%}: {clean}; {at_rate}")
        verdict = "PASS" if self.passed else "FAIL"
        out.append(
            f"{verdict}: upper bound {self.report_bound:.2%} "
            f"{'<=' if self.report_bound <= self.target else '>'} target {self.target:.2%}"
            + (
                f" (mentions: {self.mention_bound:.2%} vs {self.mention_target:.2%})"
                if self.mention_target is not None and self.mention_bound is not None
                else ""
            )
        )
        return out


def certify(reports: Sequence[MarkedReport], targets: ReleaseTargets | None = None) -> Certificate:
    """The estimate of `reports` (every sampled report, reviewed) against `targets`."""
    targets = targets or ReleaseTargets()
    if not reports:
        raise ValueError("certify needs at least one reviewed report")
    by_label: dict[str, Counter] = {}
    leaking = 0
    strata: dict[str, Counter] = {}
    for r in reports:
        left_here = 0
        for span in r.truth:
            c = by_label.setdefault(span[0], Counter())
            c["mentions"] += 1
            if is_left(span, r.detected):
                c["left"] += 1
                left_here += 1
        leaking += left_here > 0
        s = strata.setdefault(r.stratum, Counter())
        s["reports"] += 1
        s["with_phi"] += left_here > 0
    n = len(reports)
    mentions = sum(c["mentions"] for c in by_label.values())
    left = sum(c["left"] for c in by_label.values())
    report_bound = upper_bound(leaking, n, targets.confidence)
    mention_bound = upper_bound(left, mentions, targets.confidence) if mentions else None
    passed = report_bound <= targets.max_reports_with_phi
    if targets.max_mentions_left is not None:
        passed = passed and mention_bound is not None and mention_bound <= targets.max_mentions_left
    return Certificate(
        confidence=targets.confidence,
        reports=n,
        reports_with_phi=leaking,
        report_share=leaking / n,
        report_bound=report_bound,
        mentions=mentions,
        mentions_left=left,
        mention_share=left / mentions if mentions else 0.0,
        mention_bound=mention_bound,
        by_label={
            label: {"mentions": c["mentions"], "left": c["left"]}
            for label, c in sorted(by_label.items())
        },
        target=targets.max_reports_with_phi,
        mention_target=targets.max_mentions_left,
        passed=passed,
        needed_if_clean=sample_size(targets.max_reports_with_phi, targets.confidence),
        needed_at_rate=sample_size(
            targets.max_reports_with_phi, targets.confidence, rate=leaking / n
        ),
        strata={s: dict(c) for s, c in sorted(strata.items())},
    )
