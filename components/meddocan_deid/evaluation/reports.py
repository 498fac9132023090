"""The evaluation reports of the project steps `evaluate`, `errors` and `export-brat`.

Each reads a pipeline and a converted DocBin (gold in `user_data`, or a BRAT folder),
writes its files (scores and per-type tables; an error table; BRAT folders) and prints
numbers only, never report text. Only the error table and the BRAT folders hold report
text: they belong under gitignored folders.
"""

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import spacy
import srsly
import typer

from ..brat import write_brat
from ..files import atomic_write
from ..pipeline.privacy import load_with_privacy
from .metrics import EvaluationError
from .results import (
    DocResult,
    per_type_markdown,
    run_model,
    score_results,
    sentence_source,
    summary_rows,
)

ERROR_COLUMNS = ("label", "kind", "doc_id", "start", "end", "left", "span", "right", "other")
ERROR_KINDS = ("missed", "spurious", "boundaries", "label", "label and boundaries")


# --- evaluate: scores per split


def evaluation_splits(data_path: Path) -> list[Path]:
    """The DocBins to score: DATA_PATH itself, or every split of a corpus folder but the
    training data (`train.spacy` and its augmented copies, `train_*.spacy`)."""
    if data_path.is_dir():
        splits = sorted(
            p
            for p in data_path.glob("*.spacy")
            if p.stem != "train" and not p.stem.startswith("train_")
        )
    else:
        splits = [data_path]
    if not splits:
        raise EvaluationError(f"{data_path}: no evaluation split (*.spacy other than train.spacy)")
    if not all(p.exists() for p in splits):
        raise EvaluationError(f"{data_path}: file not found")
    return splits


def evaluate_split(
    nlp, data_path: Path, output_dir: Path, suffix: str, gold_brat, sentences, batch_size
) -> dict:
    """Score one split; write `<split><suffix>.json` and `<split><suffix>_per_type.md`."""
    results, speed = run_model(
        nlp, data_path, batch_size=batch_size, gold_brat=gold_brat, sentences_dir=sentences
    )
    scores = score_results(results)
    scores["meddocan_sentence_source"] = sentence_source(results)
    scores["speed"] = speed
    output_dir.mkdir(parents=True, exist_ok=True)
    split = data_path.stem
    output, table = (
        output_dir / f"{split}{suffix}.json",
        output_dir / f"{split}{suffix}_per_type.md",
    )
    srsly.write_json(output, scores)
    atomic_write(table, per_type_markdown(scores))

    typer.echo(
        f"== {split}: {speed['docs']} reports, {speed['words']} words, "
        f"{speed['words_per_second']:.0f} words/s"
    )
    typer.echo(f"{'metric':<18}{'P':>8}{'R':>8}{'F1':>8}")
    for name, p, r, f in summary_rows(scores):
        typer.echo(f"{name:<18}{p:>8}{r:>8}{f:>8}")
    if "meddocan_s1_leak" in scores:
        typer.echo(f"leak (subtask 1, official sentences): {scores['meddocan_s1_leak']:.5f}")
    else:
        typer.echo(
            "leak (subtask 1, PIPELINE sentences, no official counts): "
            f"{scores['meddocan_s1_leak_pipeline']:.5f}"
        )
    typer.echo(
        f"PHI words covered: {scores['meddocan_phi_word_recall']:.4f}, identifying: "
        f"{scores['meddocan_phi_identifying_word_recall']:.4f}, non-PHI words removed: "
        f"{scores['meddocan_over_redaction']:.4f}"
    )
    typer.echo("")
    typer.echo(per_type_markdown(scores), nl=False)
    typer.echo(f"-> {output}, {table}")
    return scores


def evaluate_model(
    model: str,
    data_path: Path,
    output_dir: Path = Path("metrics"),
    suffix: str = "",
    gold_brat: Path | None = None,
    sentences: Path | None = None,
    batch_size: int = 32,
    privacy: str | None = None,
) -> list[dict]:
    """Score every split of DATA_PATH (see `evaluation_splits`); raises EvaluationError
    before loading the model when there is nothing to score. privacy: the pipeline's
    privacy level ("balanced", "high"), None: as saved."""
    splits = evaluation_splits(data_path)
    nlp = load_with_privacy(model, privacy)
    return [
        evaluate_split(nlp, split, output_dir, suffix, gold_brat, sentences, batch_size)
        for split in splits
    ]


# --- errors: false negatives and false positives in context


def _clean(s: str) -> str:
    return s.replace("\t", " ").replace("\r", " ").replace("\n", " ⏎ ")


def error_kind(kind: str, label: str, start: int, end: int, overlap: Iterable[tuple]) -> str:
    """What separates an error from the other side's annotations that overlap it."""
    overlap = list(overlap)
    if not overlap:
        return "missed" if kind == "FN" else "spurious"
    if any((s, e) == (start, end) for _, s, e in overlap):
        return "label"
    if any(lab == label for lab, _, _ in overlap):
        return "boundaries"
    return "label and boundaries"


def error_rows(results: Iterable[DocResult], width: int = 40) -> tuple[list[tuple], Counter]:
    """The error rows (ERROR_COLUMNS), and their counts by (kind of error, FN/FP)."""
    rows = []
    kinds: Counter = Counter()
    for r in results:
        gold, system = set(r.gold), set(r.system)
        for kind, errors, other in (("FN", gold - system, system), ("FP", system - gold, gold)):
            for label, start, end in sorted(errors, key=lambda a: (a[1], a[2], a[0])):
                overlap = sorted(o for o in other if o[1] < end and start < o[2])
                kinds[error_kind(kind, label, start, end, overlap), kind] += 1
                rows.append(
                    (
                        label,
                        kind,
                        r.doc_id,
                        start,
                        end,
                        _clean(r.text[max(0, start - width) : start]),
                        _clean(r.text[start:end]),
                        _clean(r.text[end : end + width]),
                        " ".join(f"{lab}:{s}-{e}" for lab, s, e in overlap),
                    )
                )
    rows.sort(key=lambda row: (row[0], row[1], row[2], row[3]))
    return rows, kinds


def write_errors(
    model: str,
    data_path: Path,
    output_file: Path,
    gold_brat: Path | None = None,
    width: int = 40,
    batch_size: int = 32,
) -> Counter:
    """Write the error table (TSV, report text in context) and print the counts per label
    and per kind of error; returns the counts by (label, FN/FP)."""
    nlp = spacy.load(model)
    results, _ = run_model(nlp, data_path, batch_size=batch_size, gold_brat=gold_brat)
    rows, kinds = error_rows(results, width)
    lines = ["\t".join(ERROR_COLUMNS)] + ["\t".join(map(str, row)) for row in rows]
    atomic_write(output_file, "\n".join(lines) + "\n")
    counts = Counter((row[0], row[1]) for row in rows)
    labels = sorted({label for label, _ in counts})
    typer.echo(f"{'label':<36}{'FN':>6}{'FP':>6}")
    for label in labels:
        typer.echo(f"{label:<36}{counts[label, 'FN']:>6}{counts[label, 'FP']:>6}")
    fn = sum(v for (_, k), v in counts.items() if k == "FN")
    typer.echo(f"{'total':<36}{fn:>6}{len(rows) - fn:>6}")
    typer.echo(f"\n{'kind of error':<36}{'FN':>6}{'FP':>6}")
    for what in ERROR_KINDS:
        typer.echo(f"{what:<36}{kinds[what, 'FN']:>6}{kinds[what, 'FP']:>6}")
    typer.echo(f"-> {output_file} (contains report text: keep it out of git)")
    return counts


# --- export-brat: the layout the official MEDDOCAN evaluation reads


def export(results: Iterable[DocResult], output_dir: Path) -> int:
    """OUTPUT_DIR/res/brat/subtask{1,2}/ID.{txt,ann} (system; the official script reads
    both) and OUTPUT_DIR/ref/brat/ID.{txt,ann} (gold); returns the number of reports."""
    n = 0
    for r in results:
        for sub in ("subtask1", "subtask2"):
            write_brat(output_dir / "res" / "brat" / sub, r.doc_id, r.text, r.system)
        write_brat(output_dir / "ref" / "brat", r.doc_id, r.text, r.gold)
        n += 1
    return n


def export_brat(
    model: str,
    data_path: Path,
    output_dir: Path,
    gold_brat: Path | None = None,
    batch_size: int = 32,
) -> int:
    """Run the model on DATA_PATH and `export` system and gold; prints the counts."""
    nlp = spacy.load(model)
    results, _ = run_model(nlp, data_path, batch_size=batch_size, gold_brat=gold_brat)
    n = export(results, output_dir)
    n_sys = sum(len(r.system) for r in results)
    n_gold = sum(len(r.gold) for r in results)
    typer.echo(
        f"{n} reports: {n_sys} system and {n_gold} gold annotations -> {output_dir}/res/brat, "
        f"{output_dir}/ref/brat"
    )
    return n
