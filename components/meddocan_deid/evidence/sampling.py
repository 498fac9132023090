"""A seeded random sample of a run's reports for a reviewer, stratified by document type.

The population is every report the run wrote (its `.txt` in the output folder) whose original
is in the run's private folder (`--private-dir`: the original and its `.ann`, the spans the
pipeline found). A report's document type is its line in a types file (`id<TAB>type`), else
the first folder of its id (`alta/r001` -> `alta`), else `all`. Each type gets its share of
the sample (proportional allocation, largest remainders), so the pooled shares estimate the
run's: the sample is self-weighting up to rounding.

`write_sample` writes into a private folder (it holds PHI: refused inside the output):
`sample.json` (the seed, the run, the strata, the ids in review order; no text),
`marks.jsonl` (one line per report: the spans found, and `missed` / `not_phi` for the reviewer
to fill in, `reviewed` to set), `labelstudio.json` (the same reports for the Label Studio round
trip, the spans found as predictions) and `review/` (the review pages of the sampled reports).
"""

import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..annotations import AnnotatedReport, write_annotations
from ..brat import BratError, read_ann, read_text
from ..deid.fingerprint import FINGERPRINT_NAME, digest_of
from ..deid.review import ReviewSite, report_from_files, run_mode
from ..engine.output import check_private_dir
from ..errors import InputError, RunError, StoredDataError
from ..files import atomic_write

SAMPLE_FILE = "sample.json"
MARKS_FILE = "marks.jsonl"
DEFAULT_TYPE = "all"
Span = tuple[str, int, int]


@dataclass
class SampledReport:
    id: str
    stratum: str
    detected: list[Span]
    # the found spans' calibrated confidence (None: not the NER's) and the NER's near misses
    # (label, start, end, probability), when the sample is ordered by confidence
    scores: list[float | None] = field(default_factory=list)
    near: list[tuple[str, int, int, float]] = field(default_factory=list)


def population(output: Path, private_dir: Path) -> list[str]:
    """The ids of the reports the run wrote whose original is in `private_dir`, sorted."""
    output, private_dir = Path(output), Path(private_dir)
    for folder, what in ((output, "RUN_DIR"), (private_dir, "--private-dir")):
        if not folder.is_dir():
            raise RunError(f"{folder}: {what} folder not found")
    ids = []
    for txt in sorted(private_dir.rglob("*.txt")):
        stem = txt.relative_to(private_dir).with_suffix("").as_posix()
        if (output / f"{stem}.txt").is_file() and txt.with_suffix(".ann").is_file():
            ids.append(stem)
    if not ids:
        raise RunError(
            f"{private_dir}: no report of {output} has its original here (the run's --private-dir)"
        )
    return ids


def read_types(path: Path) -> dict[str, str]:
    """`id<TAB>type` lines (blank lines and `#` comments skipped)."""
    types: dict[str, str] = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise RunError(f"{path}: cannot read the types file ({type(err).__name__})") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise RunError(f"{path}:{n}: expected `id<TAB>type`")
        types[parts[0].strip()] = parts[1].strip()
    return types


def stratum_of(report_id: str, types: Mapping[str, str]) -> str:
    if report_id in types:
        return types[report_id]
    head, sep, _ = report_id.partition("/")
    return head if sep else DEFAULT_TYPE


def allocate(sizes: Mapping[str, int], n: int) -> dict[str, int]:
    """Proportional allocation of `n` over strata of `sizes` (largest remainders; never more
    than a stratum holds)."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    exact = {s: n * size / total for s, size in sizes.items()}
    given = {s: int(v) for s, v in exact.items()}
    by_remainder = sorted(sizes, key=lambda s: (-(exact[s] - given[s]), s))
    for s in by_remainder[: n - sum(given.values())]:
        given[s] += 1
    return given


def draw(ids: Sequence[str], n: int, seed: int, types: Mapping[str, str]) -> list[tuple[str, str]]:
    """(id, stratum) of a stratified random sample of `n` ids, in a random review order."""
    if n <= 0:
        raise RunError(f"--n must be at least 1 (got {n})")
    strata: dict[str, list[str]] = defaultdict(list)
    for report_id in sorted(ids):
        strata[stratum_of(report_id, types)].append(report_id)
    rng = random.Random(seed)
    sizes = allocate({s: len(v) for s, v in strata.items()}, n)
    chosen = [(i, s) for s in sorted(strata) for i in rng.sample(strata[s], sizes[s])]
    rng.shuffle(chosen)
    return chosen


def _detected(private_dir: Path, report_id: str) -> tuple[str, list[Span]]:
    txt = Path(private_dir) / f"{report_id}.txt"
    text = read_text(txt)
    spans = [(label, s, e) for label, s, e in read_ann(txt.with_suffix(".ann"), text)]
    return text, sorted(spans, key=lambda s: (s[1], s[2]))


def run_digest(output: Path) -> str | None:
    """The digest of the run's fingerprint (`run_fingerprint.json`), which ties a sample, its
    certificate and the statement to the run; None without one."""
    try:
        fingerprint = json.loads((Path(output) / FINGERPRINT_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return digest_of(fingerprint) if fingerprint else None


def write_sample(
    output: Path,
    private_dir: Path,
    sample_dir: Path,
    *,
    n: int = 60,
    seed: int = 0,
    types: Mapping[str, str] | None = None,
    order: Callable[[list[SampledReport], dict[str, str]], list[SampledReport]] | None = None,
) -> dict:
    """Draw the sample and write its files (see the module's docstring); returns what
    `sample.json` holds. `order` puts the sampled reports in review order (given their texts),
    e.g. the least certain spans first; without it the order is random."""
    output, private_dir, sample_dir = Path(output), Path(private_dir), Path(sample_dir)
    try:
        check_private_dir(sample_dir, output, None, "SAMPLE_DIR")
    except InputError as err:
        raise RunError(str(err)) from None
    ids = population(output, private_dir)
    types = dict(types or {})
    chosen = draw(ids, n, seed, types)
    texts: dict[str, str] = {}
    sampled: list[SampledReport] = []
    try:
        for report_id, stratum in chosen:
            texts[report_id], spans = _detected(private_dir, report_id)
            sampled.append(SampledReport(report_id, stratum, spans))
        if order is not None:
            sampled = order(sampled, texts)
        site = ReviewSite(sample_dir / "review", mode=run_mode(output))
        for r in sampled:
            site.add(
                report_from_files(
                    r.id,
                    texts[r.id],
                    read_text(private_dir / f"{r.id}.ann"),
                    read_text(output / f"{r.id}.txt"),
                    read_text(output / f"{r.id}.ann"),
                )
            )
    except (BratError, StoredDataError, OSError) as err:
        raise RunError(f"{private_dir}: cannot read the sampled reports ({err})") from None
    site.notes.append(
        "A random sample for the residual-risk estimate: mark each PHI left in clear in "
        f"{MARKS_FILE} (missed) or in the Label Studio round trip, then run certify."
    )
    site.close()
    population_sizes = Counter(stratum_of(i, types) for i in ids)
    sampled_sizes = Counter(r.stratum for r in sampled)
    record = {
        "run": str(output),
        "run_digest": run_digest(output),
        "seed": seed,
        "n": len(sampled),
        "population": len(ids),
        "strata": {
            s: {"population": population_sizes[s], "sampled": sampled_sizes.get(s, 0)}
            for s in sorted(population_sizes)
        },
        "order": "least certain first" if order is not None else "random",
        "ids": [r.id for r in sampled],
    }
    atomic_write(sample_dir / SAMPLE_FILE, json.dumps(record, ensure_ascii=False, indent=2) + "\n")
    lines = [
        json.dumps(
            {
                "id": r.id,
                "stratum": r.stratum,
                "detected": [list(s) for s in r.detected],
                **({"scores": r.scores} if r.scores else {}),
                **({"near_misses": [list(n) for n in r.near]} if r.near else {}),
                "missed": [],
                "not_phi": [],
                "reviewed": False,
            },
            ensure_ascii=False,
        )
        for r in sampled
    ]
    atomic_write(sample_dir / MARKS_FILE, "\n".join(lines) + "\n")
    write_annotations(
        "labelstudio",
        [AnnotatedReport(r.id, texts[r.id], list(r.detected)) for r in sampled],
        sample_dir,
        model_version="run",
    )
    return record
