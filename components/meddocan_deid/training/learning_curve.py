"""The learning curve: how the full pipeline's dev scores move with the amount of gold data.

Reads converted DocBins (train, dev) and two configs; trains one NER per row under
OUTPUT_DIR (`spacy train`), assembles each into the full pipeline (`spacy assemble`) and
scores it with the MEDDOCAN metrics. Rows: a share of the train reports (nested seeded
samples), and optionally train + K-1 of K dev folds scored on the held-out fold. Returns
Markdown rows with numbers only, never report text.
"""

import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import spacy
from spacy.cli.train import train
from spacy.tokens import Doc, DocBin

from ..errors import CurveError  # noqa: F401  (re-exported)
from ..evaluation.results import run_model, score_results

HEADER = [
    "| NER trained on | train reports | s1 P | s1 R | s1 F1 | s1 FN | leak | s2 merged F1 |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]


def parse_fractions(text: str) -> list[float]:
    fractions = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            value = float(part)
        except ValueError:
            raise CurveError(f"--fractions: {part!r} is not a number") from None
        if not 0 < value <= 1:
            raise CurveError(f"--fractions: {part} is not in (0, 1]")
        fractions.append(value)
    return fractions


def read_docs(path: Path, vocab) -> list[Doc]:
    """The reports of a converted DocBin, in a fixed order (by report id)."""
    if not path.is_file():
        raise CurveError(f"{path}: file not found")
    docs = list(DocBin().from_disk(path).get_docs(vocab))
    if not docs:
        raise CurveError(f"{path}: no reports")
    return sorted(docs, key=lambda d: str(d.user_data.get("meddocan_id", "")))


def sample(docs: Sequence[Doc], fraction: float, seed: int) -> list[Doc]:
    """A share of the reports: a prefix of one seeded shuffle, so smaller
    shares nest in larger ones."""
    k = max(1, round(fraction * len(docs)))
    return random.Random(seed).sample(list(docs), len(docs))[:k]


def dev_folds(docs: Sequence[Doc], k: int) -> list[list[Doc]]:
    """K folds of the dev reports, dealt round-robin in report-id order."""
    return [list(docs[i::k]) for i in range(k)]


def write_docbin(docs: Sequence[Doc], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    DocBin(docs=docs, store_user_data=True).to_disk(path)
    return path


def assemble(pipeline_config: Path, ner_model: Path, output: Path) -> spacy.Language:
    """`spacy assemble` around the trained NER, as the `assemble` step runs it."""
    cmd = [
        sys.executable,
        "-m",
        "spacy",
        "assemble",
        str(pipeline_config),
        str(output),
        "--paths.ner_model",
        str(ner_model),
    ]
    if subprocess.run(cmd).returncode != 0:
        raise CurveError(f"{pipeline_config}: spacy assemble failed around {ner_model}")
    return spacy.load(output)


def train_and_score(
    config: Path,
    pipeline_config: Path,
    train_docs,
    dev_docs,
    folder: Path,
    options: dict,
    gpu_id: int,
):
    """Train the NER on train_docs (model-best chosen on dev_docs), assemble, score dev_docs."""
    train_path = write_docbin(train_docs, folder / "train.spacy")
    dev_path = write_docbin(dev_docs, folder / "dev.spacy")
    overrides = {"paths.train": str(train_path), "paths.dev": str(dev_path), **options}
    train(config, folder / "ner", use_gpu=gpu_id, overrides=overrides)
    nlp = assemble(pipeline_config, folder / "ner" / "model-best", folder / "pipeline")
    return run_model(nlp, dev_path)[0]


def curve_rows(
    config, pipeline_config, train_docs, dev_docs, output_dir: Path, shares, k: int, options, gpu_id
):
    """(row name, train reports per model, dev results) for each share, then the K-fold row."""
    rows: list[tuple[str, int, list]] = []
    for share in shares:
        docs = sample(train_docs, share, options["system.seed"])
        folder = output_dir / f"train_{round(100 * share)}"
        rows.append(
            (
                f"{100 * share:g}% of train",
                len(docs),
                train_and_score(config, pipeline_config, docs, dev_docs, folder, options, gpu_id),
            )
        )
    if k:
        folds, results = dev_folds(dev_docs, k), []
        for i, held_out in enumerate(folds):
            seen = [d for j, fold in enumerate(folds) if j != i for d in fold]
            results += train_and_score(
                config,
                pipeline_config,
                train_docs + seen,
                held_out,
                output_dir / f"train_dev_fold{i}",
                options,
                gpu_id,
            )
        # reports per model (folds differ by at most one report)
        rows.append(
            (
                f"train + dev, {k}-fold cross-validation",
                round(len(train_docs) + len(dev_docs) * (k - 1) / k),
                results,
            )
        )
    return rows


def row(name: str, n_train: int, results) -> str:
    s = score_results(results)
    leak = s.get("meddocan_s1_leak", s.get("meddocan_s1_leak_pipeline"))
    return (
        f"| {name} | {n_train} | {s['meddocan_s1_p']:.4f} | {s['meddocan_s1_r']:.4f} | "
        f"{s['meddocan_s1_f']:.4f} | {s['meddocan_s1_fn']} | {leak:.4f} | "
        f"{s['meddocan_s2_merged_f']:.4f} |"
    )


def learning_curve(
    config: Path,
    pipeline_config: Path,
    train_path: Path,
    dev_path: Path,
    output_dir: Path,
    fractions: str = "0.25,0.5,1",
    dev_folds_k: int = 0,
    max_steps: int = 4000,
    eval_frequency: int = 400,
    seed: int = 0,
    gpu_id: int = -1,
) -> list[str]:
    """The table lines (HEADER, then one row per trained NER). Raises CurveError on a bad
    option or input before anything is trained or written."""
    shares = parse_fractions(fractions)
    if dev_folds_k == 1 or dev_folds_k < 0:
        raise CurveError(f"--dev-folds: {dev_folds_k} must be 0 (no row) or at least 2")
    if not shares and not dev_folds_k:
        raise CurveError("nothing to train: give --fractions or --dev-folds")
    vocab = spacy.blank("es").vocab
    train_docs, dev_docs = read_docs(train_path, vocab), read_docs(dev_path, vocab)
    if dev_folds_k > len(dev_docs):
        raise CurveError(f"--dev-folds: {dev_folds_k} folds for {len(dev_docs)} dev reports")
    options = {
        "training.max_steps": max_steps,
        "training.eval_frequency": eval_frequency,
        "system.seed": seed,
    }
    rows = curve_rows(
        config,
        pipeline_config,
        train_docs,
        dev_docs,
        output_dir,
        shares,
        dev_folds_k,
        options,
        gpu_id,
    )
    lines = list(HEADER)
    for name, n_train, results in rows:
        lines.append(row(name, n_train, results))
    return lines
