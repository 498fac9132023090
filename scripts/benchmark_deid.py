"""Throughput and crash-safety of `meddocan-deid deidentify` on the background reports.

    python scripts/benchmark_deid.py MODEL INPUT_DIR [--limit N] [--mode surrogate]
    python scripts/benchmark_deid.py MODEL INPUT_DIR --kill-resume [--limit N]

Default: the CLI with `--n-process 1`, then `--n-process 2`, on the same reports; prints
reports/s of each (model loading excluded, from the run reports) and the ratio, and checks
that both outputs are byte-identical. `--kill-resume`: starts a run, SIGKILLs it once some
reports are written, reruns it, and prints reports written / expected / duplicates /
leftover temporary files (and whether the result equals an uninterrupted run).

Reports and outputs go to a temporary folder under --work-dir (gitignored `reports/` by
default) that is removed at the end; the key is random and lives only in the environment
of the child processes. Nothing of the reports is printed.
"""

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cli_args(model, inp, out, mode, n_process, batch_size):
    return [
        sys.executable,
        "-m",
        "meddocan_deid",
        "deidentify",
        str(inp),
        str(out),
        "--mode",
        mode,
        "--model",
        str(model),
        "--n-process",
        str(n_process),
        "--batch-size",
        str(batch_size),
    ]


def env_with_key(key: str):
    env = dict(os.environ)
    env["MEDDOCAN_DEID_KEY"] = key
    return env


def outputs(folder: Path):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "run_report.json"
    }


def select_inputs(src: Path, dest: Path, limit: int) -> int:
    files = sorted(src.rglob("*.txt"))
    if limit:
        files = files[:limit]
    if not files:
        sys.exit(f"{src}: no .txt reports")
    for f in files:
        target = dest / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, target)
    return len(files)


def run_cli(args, env) -> dict:
    r = subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode not in (0, 1):
        sys.exit(
            f"the CLI failed (exit {r.returncode}): "
            f"{r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}"
        )
    return json.loads((Path(args[5]) / "run_report.json").read_text(encoding="utf-8"))


def throughput(model, inp, work, n, mode, batch_size, env):
    rates = {}
    outs = {}
    for n_process in (1, 2):
        out = work / f"out_n{n_process}"
        t0 = time.time()
        rep = run_cli(cli_args(model, inp, out, mode, n_process, batch_size), env)
        wall = time.time() - t0
        c = rep["reports"]
        rates[n_process] = rep["written_per_second"]
        outs[n_process] = outputs(out)
        print(
            f"--n-process {n_process}: {c['written']}/{n} written, {c['failed']} failed, "
            f"{rep['written_per_second']:.1f} reports/s (model load "
            f"{rep['model_load_seconds']:.1f}s, wall {wall:.1f}s)"
        )
    print(f"ratio n2/n1: {rates[2] / rates[1]:.2f}")
    print(f"outputs identical with 1 and 2 processes: {outs[1] == outs[2]}")
    return 0 if outs[1] == outs[2] else 1


def kill_resume(model, inp, work, n, mode, batch_size, env, min_written):
    out = work / "out_killed"
    args = cli_args(model, inp, out, mode, 1, batch_size)
    proc = subprocess.Popen(
        args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    target = max(1, min(min_written, n // 2))
    while proc.poll() is None:
        if out.is_dir() and sum(1 for _ in out.rglob("*.txt")) >= target:
            break
        time.sleep(0.005)
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = sum(1 for _ in out.rglob("*.txt")) if out.is_dir() else 0
    tmp_before = len(list(out.rglob("*.tmp"))) if out.is_dir() else 0
    print(
        f"killed with SIGKILL after {before}/{n} reports ({tmp_before} temporary files at that "
        "moment)"
    )
    rep = run_cli(args, env)
    c = rep["reports"]
    print(
        f"rerun: read {c['read']}, written {c['written']}, skipped {c['skipped']}, failed "
        f"{c['failed']}"
    )
    txts = [p.relative_to(out).with_suffix("").as_posix() for p in out.rglob("*.txt")]
    anns = [p.relative_to(out).with_suffix("").as_posix() for p in out.rglob("*.ann")]
    folded = [t.casefold() for t in txts]
    duplicates = len(folded) - len(set(folded))
    leftover = [p for p in out.rglob("*") if p.name.endswith(".tmp")]
    print(
        f"reports written {len(txts)} / expected {n}; .ann files {len(anns)}; duplicates "
        f"{duplicates}; leftover temporary files {len(leftover)}"
    )
    clean = work / "out_clean"
    run_cli(cli_args(model, inp, clean, mode, 1, batch_size), env)
    same = outputs(out) == outputs(clean)
    print(f"identical to an uninterrupted run: {same}")
    ok = len(txts) == n == len(anns) and duplicates == 0 and not leftover and same
    return 0 if ok else 1


def add_run_arguments(parser: argparse.ArgumentParser, model_help: str) -> None:
    """The arguments of both benchmarks: the model, the reports and how they are run."""
    parser.add_argument("model", help=model_help)
    parser.add_argument(
        "input_dir", type=Path, help="folder of .txt reports (e.g. the background set)"
    )
    parser.add_argument("--limit", type=int, default=0, help="first N reports only (0: all)")
    parser.add_argument(
        "--mode", default="surrogate", choices=["tag", "mask", "redact", "surrogate"]
    )
    parser.add_argument("--batch-size", type=int, default=32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, "pipeline name or path")
    parser.add_argument(
        "--kill-resume",
        action="store_true",
        help="the SIGKILL/rerun check instead of the throughput runs",
    )
    parser.add_argument(
        "--kill-after", type=int, default=50, help="kill once this many reports are written"
    )
    parser.add_argument("--work-dir", type=Path, default=Path("reports"))
    a = parser.parse_args()
    if not a.input_dir.is_dir():
        sys.exit(f"{a.input_dir}: not a folder")
    a.work_dir.mkdir(parents=True, exist_ok=True)
    env = env_with_key(secrets.token_hex(32))
    work = Path(tempfile.mkdtemp(prefix="benchmark_deid_", dir=a.work_dir))
    try:
        inp = work / "in"
        n = select_inputs(a.input_dir, inp, a.limit)
        print(
            f"{n} reports from {a.input_dir}, mode {a.mode}, batch size {a.batch_size}, model "
            f"{a.model}"
        )
        if a.kill_resume:
            code = kill_resume(a.model, inp, work, n, a.mode, a.batch_size, env, a.kill_after)
        else:
            code = throughput(a.model, inp, work, n, a.mode, a.batch_size, env)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(code)


if __name__ == "__main__":
    main()
