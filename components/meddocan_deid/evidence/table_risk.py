"""Re-identification risk of a table: k-anonymity and l-diversity of its quasi-identifiers, the
rows at risk (by row id, never a value), and the least generalisation that reaches a target k.

A combination of quasi-identifier values (an equivalence class) shared by fewer than k rows
singles those rows out. `measure` gives k (the smallest class), l (the fewest distinct sensitive
values in a class) and the rows in classes under the target. `least_generalisation` tries every
combination of the columns' ladder levels (evidence/generalise.py; a table of a few columns has
a few hundred) and keeps the least general that reaches k (and l): the smallest loss, each
column's level as a share of its ladder, summed (Sweeney's precision; a column withheld costs
1, whatever its ladder's length), ties broken by the smallest discernibility (the sum of the
squared class sizes). Rows are withheld when at most
`max_suppressed` of the rows, those still at risk, are (their quasi-identifiers `*`).

pyCANON (IFCA) measures the same, but pins typer and numpy to versions other than this
package's; a groupby is all k and l need.
"""

import itertools
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .generalise import describe, generalise_column, ladder
from .targets import TableTargets

MAX_LISTED = 1000  # row ids listed per report (all are counted)


@dataclass
class Measure:
    k: int
    l: int | None  # noqa: E741 - the l of l-diversity
    classes: int
    rows: int
    at_risk: list[str]  # ids of rows in classes of fewer than the target k
    suppressed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "k": self.k,
            "l": self.l,
            "classes": self.classes,
            "rows": self.rows,
            "rows_at_risk": len(self.at_risk),
            "at_risk_ids": self.at_risk[:MAX_LISTED],
            "rows_suppressed": len(self.suppressed),
            "suppressed_ids": self.suppressed[:MAX_LISTED],
        }


def _classes(columns: Sequence[Sequence[str]], n: int) -> dict[tuple, list[int]]:
    groups: dict[tuple, list[int]] = defaultdict(list)
    for i in range(n):
        groups[tuple(col[i] for col in columns)].append(i)
    return groups


def measure(
    columns: Sequence[Sequence[str]],
    ids: Sequence[str],
    target_k: int,
    sensitive: Sequence[str] | None = None,
    max_suppressed: float = 0.0,
) -> Measure:
    """k, l and the rows at risk of the quasi-identifier `columns` (equal lengths); rows in
    classes under `target_k` are withheld when they are at most `max_suppressed` of the rows
    (then k and l are those of the rows kept)."""
    n = len(ids)
    groups = _classes(columns, n)
    small = [i for rows in groups.values() if len(rows) < target_k for i in rows]
    kept = groups
    suppressed: list[int] = []
    if small and len(small) <= max_suppressed * n:
        suppressed = sorted(small)
        kept = {key: rows for key, rows in groups.items() if len(rows) >= target_k}
    k = min((len(rows) for rows in kept.values()), default=0)
    l_value = None
    if sensitive is not None:
        l_value = min((len({sensitive[i] for i in rows}) for rows in kept.values()), default=0)
    at_risk = [] if suppressed else sorted(small)
    return Measure(
        k,
        l_value,
        len(kept),
        n,
        [ids[i] for i in at_risk],
        [ids[i] for i in suppressed],
    )


@dataclass
class RiskReport:
    quasi_identifiers: dict[str, str]  # column -> kind
    sensitive: str | None
    targets: dict
    before: Measure
    after: Measure | None  # None: no generalisation of the ladders reaches the target
    levels: dict[str, str] = field(default_factory=dict)  # column -> the level used, in words
    loss: float = 0.0
    tried: int = 0

    def to_dict(self) -> dict:
        return {
            "quasi_identifiers": self.quasi_identifiers,
            "sensitive": self.sensitive,
            "targets": self.targets,
            "before": self.before.to_dict(),
            "after": self.after.to_dict() if self.after else None,
            "generalisation": self.levels,
            "loss": round(self.loss, 3),
            "combinations_tried": self.tried,
        }

    def lines(self) -> list[str]:
        b = self.before
        k_target = self.targets["k"]
        l_part = f", l = {b.l}" if b.l is not None else ""
        out = [
            f"before: k = {b.k}{l_part}; {b.classes} classes of {b.rows} rows; "
            f"{len(b.at_risk)} rows in classes of fewer than {k_target}"
            + (f" (e.g. rows {', '.join(b.at_risk[:5])})" if b.at_risk else "")
        ]
        if self.after is None:
            out.append(
                f"no generalisation of the policy's ladders reaches k >= {k_target}"
                + (f" and l >= {self.targets['l']}" if self.targets.get("l") else "")
            )
            return out
        a = self.after
        used = ", ".join(f"{c}: {lvl}" for c, lvl in self.levels.items())
        l_part = f", l = {a.l}" if a.l is not None else ""
        out.append(
            f"after: k = {a.k}{l_part}; {a.classes} classes; {len(a.suppressed)} rows withheld; "
            f"generalisation (loss {self.loss:.2f} of {len(self.levels)}, the least of "
            f"{self.tried} tried): {used}"
        )
        return out


def least_generalisation(
    table: Mapping[str, Sequence],
    kinds: Mapping[str, str],
    ids: Sequence[str],
    targets: TableTargets,
    sensitive: Sequence | None = None,
    sensitive_name: str | None = None,
) -> tuple[RiskReport, dict[str, list[str]] | None]:
    """The risk before and after the least generalisation reaching the targets, and the
    generalised columns (None when none reaches them). ValueError names a bad cell's row."""
    qi = list(kinds)
    n = len(ids)
    ladders = {c: ladder(kinds[c], targets.generalise) for c in qi}
    # every level of every column, computed once
    levels = {c: [generalise_column(c, kinds[c], table[c], lvl) for lvl in ladders[c]] for c in qi}
    sens = [("" if v is None else str(v).strip()) for v in sensitive] if sensitive else None
    before = measure([levels[c][0] for c in qi], ids, targets.k, sens)
    best = None
    tried = 0
    for combo in itertools.product(*(range(len(ladders[c])) for c in qi)):
        tried += 1
        columns = [levels[c][i] for c, i in zip(qi, combo)]
        m = measure(columns, ids, targets.k, sens, targets.max_suppressed)
        if m.k < targets.k or (targets.l is not None and (m.l or 0) < targets.l):
            continue
        sizes = Counter(tuple(col[i] for col in columns) for i in range(n))
        loss = sum(i / (len(ladders[c]) - 1) for c, i in zip(qi, combo) if i)
        key = (round(loss, 9), sum(s * s for s in sizes.values()), combo)
        if best is None or key < best[0]:
            best = (key, combo, m)
    report = RiskReport(
        dict(kinds),
        sensitive_name,
        {"k": targets.k, "l": targets.l, "max_suppressed": targets.max_suppressed},
        before,
        None,
        tried=tried,
    )
    if best is None:
        return report, None
    (loss, _, _), combo, after = best
    report.after, report.loss = after, loss
    report.levels = {c: describe(kinds[c], ladders[c][i]) for c, i in zip(qi, combo)}
    generalised = {c: levels[c][i] for c, i in zip(qi, combo)}
    withheld = set(after.suppressed)
    for c in qi:  # withheld rows: every quasi-identifier `*`
        generalised[c] = ["*" if ids[i] in withheld else v for i, v in enumerate(generalised[c])]
    return report, generalised
