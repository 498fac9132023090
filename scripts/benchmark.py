"""Single-process throughput of a pipeline over a folder of reports, beside the
tokenizer alone in the same run, and peak memory (max RSS of this process). The pipeline
runs twice: as `spacy.load` gives it, then with the loaded objects out of the garbage
collector's full passes, as the CLI, the service and Spark run it (engine/heap.py).

    python scripts/benchmark.py es_meddocan_deid assets/meddocan/background [--privacy high]
"""
import resource
import time
from pathlib import Path

import typer

from meddocan_deid.brat import read_text
from meddocan_deid.engine.heap import loaded_objects_pinned
from meddocan_deid.pipeline.privacy import load_with_privacy


def throughput(fn, texts):
    start = time.perf_counter()
    tokens = sum(len(doc) for doc in fn(texts))
    seconds = time.perf_counter() - start
    return tokens, seconds


def main(
    model: str = typer.Argument(..., help="Installed package name or pipeline path"),
    folder: Path = typer.Argument(..., help="Folder of .txt reports"),
    limit: int = typer.Option(0, help="Use only the first N reports (0: all)"),
    batch_size: int = typer.Option(64),
    privacy: str = typer.Option(None, help="Privacy level: balanced or high (default: as saved)"),
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
    tok_tokens, tok_s = throughput(lambda ts: (nlp.make_doc(t) for t in ts), texts)
    def run_pipeline(ts):
        return nlp.pipe(ts, batch_size=batch_size, n_process=1)

    full_tokens, full_s = throughput(run_pipeline, texts)
    with loaded_objects_pinned():
        pinned_tokens, pinned_s = throughput(run_pipeline, texts)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tok_rate, full_rate, pinned_rate = tok_tokens / tok_s, full_tokens / full_s, pinned_tokens / pinned_s
    typer.echo(f"model: {nlp.meta.get('lang')}_{nlp.meta.get('name')} {nlp.meta.get('version')}; pipes: {nlp.pipe_names}")
    typer.echo(f"reports: {len(texts)}, tokens: {full_tokens}, characters: {sum(map(len, texts))}")
    typer.echo(f"tokenizer only : {tok_rate:12,.0f} tokens/s {len(texts) / tok_s:10,.1f} reports/s")
    typer.echo(f"full pipeline  : {full_rate:12,.0f} tokens/s {len(texts) / full_s:10,.1f} reports/s")
    typer.echo(f"ratio tokenizer/full: 1/{tok_rate / full_rate:.1f}")
    typer.echo(f"full, run as the CLI/service/Spark run it (loaded objects pinned): {pinned_rate:,.0f} tokens/s "
               f"{len(texts) / pinned_s:,.1f} reports/s, ratio 1/{tok_rate / pinned_rate:.1f}")
    typer.echo(f"peak memory (max RSS): {peak_mb:,.0f} MB")


if __name__ == "__main__":
    typer.run(main)
