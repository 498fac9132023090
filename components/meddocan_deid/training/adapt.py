"""Adapt a shipped pipeline to a hospital's reports: fine-tune its NER on the locally corrected
reports (a DocBin of `meddocan-deid import`) mixed with MEDDOCAN train, starting from the
shipped weights.

- Training: `nlp.update` on the pipeline's `tok2vec` and `ner` (whichever it has; in the
  five-NER pipeline only the first NER, which has its own tok2vec: the members that vote with
  it stay as shipped) with an optimizer resumed from the loaded weights
  (`nlp.resume_training`). Each batch of `batch_size` reports holds round(local_share x
  batch_size) local reports and MEDDOCAN train reports for the rest (rehearsal: what the NER
  learnt is trained on again, so it does not forget the other layouts); each set is read in
  seeded shuffled passes. `frozen` components run on each batch without being updated; local
  labels the NER lacks are added to it first (`add_labels`; outside the MEDDOCAN set: an error).
- Estimate: K-fold cross-validation over the local reports. For each fold and each train size,
  the shipped pipeline is fine-tuned on that many local reports outside the fold (the first
  ones of a seeded order of the other folds) and scored on the fold, so no report is scored
  by a model trained on it; the fold results are pooled. Before = the shipped pipeline on the
  same reports.
- Release: the pipeline fine-tuned on every local report, scored on MEDDOCAN dev beside the
  shipped one, saved with version `<shipped>+local.<name>` and an `adaptation` record in its
  meta (counts and scores, never text).

Scores: strict subtask-1 P/R/F1, identifying-word recall and over-redaction
(`evaluation.metrics`), through the whole pipeline (rules included).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.pipeline import EntityRecognizer, TrainablePipe
from spacy.tokens import DocBin
from spacy.training import Example
from thinc.api import Adam

from .. import LABELS
from ..errors import AdaptError  # noqa: F401  (re-exported)
from ..evaluation.package_meta import PERFORMANCE_KEYS
from ..evaluation.results import (
    GOLD_KEY,
    ID_KEY,
    SENTENCES_KEY,
    DocResult,
    pipeline_sentence_count,
    score_results,
)

SCORE_KEYS = (
    "meddocan_s1_p",
    "meddocan_s1_r",
    "meddocan_s1_f",
    "meddocan_phi_identifying_word_recall",
    "meddocan_over_redaction",
)
TRAINABLE = ("tok2vec", "ner")


@dataclass
class Gold:
    """One annotated report: token-aligned entities to train on, the full gold to score."""

    doc_id: str
    text: str
    ents: list[tuple[int, int, str]]
    gold: list[tuple[str, int, int]]
    n_sentences: int | None = None


@dataclass
class Settings:
    """Defaults: the setting of docs/experiments/2026-11-23-adaptation.md (2026-11-24) that kept
    MEDDOCAN dev within 0.005 of the shipped pipeline while learning the local layout."""

    local_share: float = 0.25
    folds: int = 5
    train_sizes: tuple[int, ...] = (5, 10, 20)
    max_steps: int = 40
    batch_size: int = 8
    learn_rate: float = 0.0002
    dropout: float = 0.3
    seed: int = 0
    dev_limit: int = 0
    frozen: tuple[
        str, ...
    ] = ()  # of TRAINABLE: run (annotating) but not updated, like spaCy's frozen_components
    average: bool = (
        False  # keep the running average of the weights over the updates (as `spacy train` saves)
    )


@dataclass
class Row:
    """A line of the learning curve: pooled held-out scores of the models trained on `size`."""

    size: int
    trained: list[int] = field(default_factory=list)  # local reports per fold model
    scores: dict[str, float] = field(default_factory=dict)
    dev: dict[str, float] = field(
        default_factory=dict
    )  # MEDDOCAN dev, the first fold's model (forgetting)


def parse_sizes(text: str) -> tuple[int, ...]:
    sizes = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if not part.isdigit() or int(part) < 1:
            raise AdaptError(f"--train-sizes: {part!r} is not a positive whole number")
        sizes.append(int(part))
    if not sizes:
        raise AdaptError("--train-sizes: no size given")
    return tuple(sorted(set(sizes)))


def read_gold(path: Path, what: str, limit: int = 0) -> list[Gold]:
    """The reports of a DocBin (import or convert), sorted by id."""
    path = Path(path)
    if not path.is_file():
        raise AdaptError(f"{path}: {what} DocBin not found")
    try:
        docs = list(DocBin().from_disk(path).get_docs(spacy.blank("es").vocab))
    except Exception as err:  # noqa: BLE001 - a corrupt file: say which
        raise AdaptError(f"{path}: not a DocBin ({type(err).__name__})") from None
    if not docs:
        raise AdaptError(f"{path}: no reports")
    golds = []
    for i, doc in enumerate(docs):
        ents = [(e.start_char, e.end_char, e.label_) for e in doc.ents]
        gold = doc.user_data.get(GOLD_KEY)
        gold = (
            [(str(a), int(b), int(c)) for a, b, c in gold]
            if gold is not None
            else [(lab, s, e) for s, e, lab in ents]
        )
        n = doc.user_data.get(SENTENCES_KEY)
        golds.append(
            Gold(
                str(doc.user_data.get(ID_KEY, f"{path.stem}-{i}")),
                doc.text,
                ents,
                gold,
                int(n) if n is not None else None,
            )
        )
    golds.sort(key=lambda g: g.doc_id)
    return golds[:limit] if limit else golds


def local_version(base_version: str, name: str) -> str:
    """`<base>+local.<name>`, PEP 440: the name lowercased, runs of other characters as `.`."""
    from packaging.version import InvalidVersion, Version

    tag = ".".join(p for p in re.split(r"[^a-z0-9]+", name.lower()) if p)
    if not tag:
        raise AdaptError(f"--name: {name!r} has no letter or digit for the version's local part")
    base = str(base_version or "0.0.0").split("+")[0]
    version = f"{base}+local.{tag}"
    try:
        return str(Version(version))
    except InvalidVersion:
        raise AdaptError(f"{version!r} is not a valid version (PEP 440)") from None


def batches(
    local: Sequence, general: Sequence, share: float, batch_size: int, rng: random.Random
) -> Iterator[list]:
    """Endless batches: round(share x batch_size) local items (at least one when share > 0),
    the rest general; all local when there is no general data. Each set
    is read in shuffled passes."""
    n_local = (
        batch_size
        if not general
        else min(batch_size, max(1 if share > 0 else 0, round(share * batch_size)))
    )

    def stream(items):
        items = list(items)
        while True:
            rng.shuffle(items)
            yield from items

    local_it = stream(local) if local and n_local else None
    general_it = stream(general) if general and n_local < batch_size else None
    while True:
        batch = [next(local_it) for _ in range(n_local)] if local_it else []
        if general_it:
            batch += [next(general_it) for _ in range(batch_size - len(batch))]
        yield batch


def trainable(nlp: Language) -> list[str]:
    names = [n for n in TRAINABLE if n in nlp.component_names]
    if "ner" not in names:
        raise AdaptError(
            "the pipeline has no 'ner' component to fine-tune (components: "
            f"{', '.join(nlp.component_names)})"
        )
    return names


def parse_frozen(text: str) -> tuple[str, ...]:
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [n for n in names if n not in TRAINABLE or n == "ner"]
    if bad:
        raise AdaptError(
            f"--frozen: {', '.join(bad)} cannot be frozen (only 'tok2vec'; 'ner' is what adapt "
            "trains)"
        )
    return names


def missing_labels(nlp: Language, golds: Sequence[Gold], what: str) -> list[str]:
    """Labels of the reports the NER lacks (it learns them: `add_labels`); a label outside the
    MEDDOCAN set is an error, since the other components and the scores know only those."""
    used = {lab for g in golds for _s, _e, lab in g.ents}
    foreign = sorted(used - set(LABELS))
    if foreign:
        raise AdaptError(f"{what}: labels outside the MEDDOCAN set: {', '.join(foreign)}")
    return sorted(used - set(_ner(nlp).labels))


def _ner(nlp: Language) -> EntityRecognizer:
    ner = nlp.get_pipe("ner")
    if not isinstance(ner, EntityRecognizer):
        raise AdaptError(
            f"the pipeline's 'ner' is a {type(ner).__name__}, not an entity recognizer"
        )
    return ner


def add_labels(nlp: Language, labels: Sequence[str]) -> None:
    """Give the trained NER new labels: spaCy resizes its output layer,
    the other weights are kept."""
    ner = _ner(nlp)
    for label in labels:
        ner.add_label(label)


def fine_tune(
    base: str,
    local: Sequence[Gold],
    general: Sequence[Gold],
    settings: Settings,
    seed: int,
    log: Callable[[str], None] = lambda _m: None,
) -> Language:
    """The shipped pipeline loaded afresh, its tok2vec + NER updated for `max_steps` batches."""
    nlp = spacy.load(base)
    names = trainable(nlp)
    add_labels(
        nlp, missing_labels(nlp, list(local) + list(general), "local reports and MEDDOCAN train")
    )
    optimizer = nlp.resume_training(
        sgd=Adam(
            learn_rate=settings.learn_rate, L2=0.01, grad_clip=1.0, use_averages=settings.average
        )
    )
    rng = random.Random(seed)
    stream = batches(local, general, settings.local_share, settings.batch_size, rng)
    losses: dict[str, float] = {}
    disabled = [n for n in nlp.pipe_names if n not in names]
    frozen = [
        n for n in settings.frozen if n in names
    ]  # run on the batch (the NER reads its output), not updated
    with nlp.select_pipes(disable=disabled):
        for step in range(1, settings.max_steps + 1):
            examples = [
                Example.from_dict(nlp.make_doc(g.text), {"entities": g.ents}) for g in next(stream)
            ]
            nlp.update(
                examples,
                sgd=optimizer,
                drop=settings.dropout,
                losses=losses,
                exclude=frozen,
                annotates=frozen,
            )
            if step % 50 == 0 or step == settings.max_steps:
                log(f"    step {step}: NER loss {losses.get('ner', 0.0):.1f}")
                losses = {}
    if settings.average and optimizer.averages is not None:
        keep_averages(nlp, names, optimizer.averages)
    return nlp


def keep_averages(nlp: Language, names: Sequence[str], averages: dict) -> None:
    """Set the components' weights to the optimizer's running averages, for good (thinc's
    `use_params` does it only inside a context)."""
    for name in names:
        pipe = nlp.get_pipe(name)
        if not isinstance(pipe, TrainablePipe):
            continue  # no weights
        for node in pipe.model.walk():
            for param in node.param_names:
                key = (node.id, param)
                if key in averages:
                    node.set_param(param, averages[key].copy())


def predict(nlp: Language, golds: Sequence[Gold]) -> list[DocResult]:
    """The whole pipeline over the reports, paired with their gold."""
    results = []
    for g, doc in zip(golds, nlp.pipe((g.text for g in golds), batch_size=16)):
        results.append(
            DocResult(
                g.doc_id,
                g.text,
                list(g.gold),
                [(e.label_, e.start_char, e.end_char) for e in doc.ents],
                g.n_sentences,
                pipeline_sentence_count(doc),
            )
        )
    return results


def scores(results: Sequence[DocResult]) -> dict[str, float]:
    s = score_results(results)
    out = {k: s[k] for k in SCORE_KEYS}
    out.update({k: s[k] for k in PERFORMANCE_KEYS if k in s})
    out["n_docs"] = len(results)
    return out


def folds_of(local: Sequence[Gold], k: int, seed: int) -> list[list[Gold]]:
    order = list(local)
    random.Random(seed).shuffle(order)
    return [order[i::k] for i in range(k)]


def cross_validate(
    base: str,
    local: Sequence[Gold],
    general: Sequence[Gold],
    settings: Settings,
    log: Callable[[str], None] = lambda _m: None,
    dev: Sequence[Gold] = (),
):
    """(before scores, rows, plan). plan: per fold the held-out ids and, per size, the ids
    trained on (for the record and the tests: never a held-out id). With `dev`, the first
    fold's model of each size is also scored on it (row.dev: what the size costs on MEDDOCAN)."""
    if settings.folds < 2 or settings.folds > len(local):
        raise AdaptError(
            f"--folds: {settings.folds} folds for {len(local)} local reports (need 2 to "
            f"{len(local)})"
        )
    folds = folds_of(local, settings.folds, settings.seed)
    rows = {size: Row(size) for size in settings.train_sizes}
    pooled: dict[int, list[DocResult]] = {size: [] for size in settings.train_sizes}
    plan = []
    for i, held in enumerate(folds):
        pool = [g for j, fold in enumerate(folds) if j != i for g in fold]
        record: dict[str, Any] = {"held_out": [g.doc_id for g in held], "trained": {}}
        cache: dict[int, list[DocResult]] = {}
        dev_cache: dict[int, dict[str, float]] = {}
        for size in settings.train_sizes:
            n = min(size, len(pool))
            if n not in cache:
                log(
                    f"  fold {i + 1}/{len(folds)}: fine-tuning on {n} local reports, scoring "
                    f"{len(held)}"
                )
                nlp = fine_tune(base, pool[:n], general, settings, settings.seed + i, log)
                cache[n] = predict(nlp, held)
                if dev and i == 0:
                    dev_cache[n] = scores(predict(nlp, dev))
                del nlp
            if n in dev_cache:
                rows[size].dev = dev_cache[n]
            record["trained"][size] = [g.doc_id for g in pool[:n]]
            rows[size].trained.append(n)
            pooled[size] += cache[n]
        plan.append(record)
    for size, row in rows.items():
        row.scores = scores(pooled[size])
    before = scores(predict(spacy.load(base), local))
    return before, [rows[s] for s in settings.train_sizes], plan


def pct(x: float) -> str:
    return f"{100 * x:.2f}"


TABLE_HEADER = [
    "| model | local reports trained on | s1 P | s1 R | s1 F1 | identifying-word recall | "
    "over-redaction |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
]


def table_row(name: str, trained: str, s: dict[str, float]) -> str:
    return (
        f"| {name} | {trained} | {pct(s['meddocan_s1_p'])} | {pct(s['meddocan_s1_r'])} | "
        f"{pct(s['meddocan_s1_f'])} | {pct(s['meddocan_phi_identifying_word_recall'])} | "
        f"{pct(s['meddocan_over_redaction'])} |"
    )


def adapt(
    base: str,
    local_path: Path,
    train_path: Path,
    dev_path: Path,
    output_dir: Path,
    name: str,
    settings: Settings,
    log: Callable[[str], None] = print,
) -> dict:
    """Cross-validate, then fine-tune on every local report and save OUTPUT_DIR/pipeline.
    Returns the adaptation record (numbers and ids of nothing but counts; see `record`)."""
    if not 0 <= settings.local_share <= 1:
        raise AdaptError(f"--local-share: {settings.local_share} is not in [0, 1]")
    if settings.max_steps < 1 or settings.batch_size < 1:
        raise AdaptError("--max-steps and --batch-size must be at least 1")
    local = read_gold(local_path, "local")
    general = read_gold(train_path, "MEDDOCAN train")
    dev = read_gold(dev_path, "MEDDOCAN dev", settings.dev_limit)
    shipped = spacy.load(base)
    meta = dict(shipped.meta)
    version = local_version(meta.get("version", "0.0.0"), name)
    trainable(shipped)
    log(
        f"shipped pipeline {meta.get('lang')}_{meta.get('name')} {meta.get('version')}; "
        f"{len(local)} local reports, {len(general)} MEDDOCAN train, {len(dev)} MEDDOCAN dev"
    )

    new = missing_labels(shipped, list(local) + list(general), "local reports and MEDDOCAN train")
    if new:
        log(
            f"notice: the shipped NER lacks {len(new)} label(s) of the training reports; adding "
            "them (output layer resized, they are learnt from these reports only): "
            f"{', '.join(new)}"
        )
    log(
        f"{settings.folds}-fold cross-validation over the local reports, train sizes "
        f"{list(settings.train_sizes)}:"
    )
    before_local, rows, _plan = cross_validate(base, local, general, settings, log, dev)
    dev_before = scores(predict(shipped, dev))
    del shipped

    log(f"fine-tuning on all {len(local)} local reports")
    final = fine_tune(base, local, general, settings, settings.seed, log)
    dev_after = scores(predict(final, dev))

    lines = [
        "Held-out local reports (pooled over the folds; each report scored once by a model that "
        "did not see it):",
        *TABLE_HEADER,
        table_row("shipped", "0", before_local),
    ]
    for row in rows:
        trained = (
            str(row.trained[0])
            if len(set(row.trained)) == 1
            else f"{min(row.trained)}-{max(row.trained)}"
        )
        lines.append(table_row(f"adapted, size {row.size}", trained, row.scores))
    lines += [
        "",
        f"MEDDOCAN dev ({len(dev)} reports):",
        *TABLE_HEADER,
        table_row("shipped", "0", dev_before),
    ]
    lines += [
        table_row(f"adapted, size {row.size} (fold 1 model)", str(row.trained[0]), row.dev)
        for row in rows
        if row.dev
    ]
    lines += [table_row("adapted on all local reports", str(len(local)), dev_after)]
    for line in lines:
        log(line)

    record = {
        "name": name,
        "base": {"name": f"{meta.get('lang')}_{meta.get('name')}", "version": meta.get("version")},
        "local_reports": len(local),
        "meddocan_train_reports": len(general),
        "settings": {**asdict(settings), "train_sizes": list(settings.train_sizes)},
        "trained_components": [n for n in trainable(final) if n not in settings.frozen],
        "cross_validation": {
            "folds": settings.folds,
            "before": before_local,
            "after": [
                {"train_size": r.size, "trained_per_fold": r.trained, **r.scores} for r in rows
            ],
            "meddocan_dev_fold1": [{"train_size": r.size, **r.dev} for r in rows],
        },
        "meddocan_dev": {"before": dev_before, "after": dev_after},
    }
    final.meta["version"] = version
    final.meta["adaptation"] = record
    final.meta["performance"] = {k: dev_after[k] for k in PERFORMANCE_KEYS if k in dev_after}
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    final.to_disk(output_dir / "pipeline")
    log(f"-> {output_dir / 'pipeline'} (version {version})")
    return {"version": version, "record": record, "table": lines, "base_meta": meta}
