"""Throughput of `meddocan-deid deidentify-spark` on `local[1]` and `local[2]`, beside the
single-machine CLI with `--n-process 2`, on the same background reports in the same run.

    python scripts/benchmark_spark.py MODEL INPUT_DIR [--limit N] [--mode surrogate]

Each figure is reports/s with the model already loaded: the single-machine CLI's
`written_per_second` (its run report excludes model loading), and for Spark the run of the
command's own code path (read the .txt folder, repartition, de-identify, write parquet,
count the statuses back) after a small job has loaded the model in every Python worker; JVM
start-up is excluded too. Each Spark master runs in its own process (a fresh JVM). The Spark
output of the last master is compared with the single-machine output (text and PHI per
report). The targets: local[2] >= 1.5 x local[1], and within 30% of the CLI with 2 processes.

Reports and outputs go to a temporary folder under --work-dir (gitignored `reports/` by
default) that is removed at the end; the key is random and lives only in the environment of
the child processes. Nothing of the reports is printed.
"""

import argparse
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark_deid import (  # scripts/ is on sys.path when run as a script
    add_run_arguments,
    cli_args,
    env_with_key,
    run_cli,
    select_inputs,
)


def single_machine(model, inp: Path, out: Path, mode, batch_size, n_process, env) -> dict:
    t0 = time.time()
    rep = run_cli(cli_args(model, inp, out, mode, n_process, batch_size), env)
    rep["wall"] = time.time() - t0
    return rep


def spark_child(args) -> None:
    """One Spark master, in this (child) process: warm up, then the timed run. Prints JSON."""
    from meddocan_deid.deid.keys import load_key
    from meddocan_deid.deid.tables import TableSpec
    from meddocan_deid.engine import Run, RunConfig, SparkJob
    from meddocan_deid.spark import load_models, make_session

    t0 = time.time()
    spark = make_session(args.spark_master, app_name="meddocan-deid-benchmark")
    start_seconds = time.time() - t0
    cores = spark.sparkContext.defaultParallelism
    t0 = time.time()
    workers = load_models(spark, str(args.model), n_tasks=2 * cores)
    load_seconds = time.time() - t0
    key = load_key() if args.mode == "surrogate" else None
    config = RunConfig(
        input=str(args.input_dir),
        output=str(args.spark_output),
        mode=args.mode,
        key=key,
        model=str(args.model),
        batch_size=args.batch_size,
        table=TableSpec(id_column="id", text_columns=("text",), status_column="status"),
        spark=SparkJob(input_format="txt", output_format="parquet", partitions=4 * cores),
    )
    summary = Run(config, spark=spark).execute_report().to_dict()
    spark.stop()
    print(
        json.dumps(
            {
                "master": args.spark_master,
                "cores": cores,
                "workers_warmed": workers,
                "session_seconds": round(start_seconds, 2),
                "warmup_seconds": round(load_seconds, 2),
                "seconds": summary["seconds"],
                "rows": summary["rows"],
            }
        )
    )


def run_spark_master(script_args, master, out: Path, env) -> dict:
    args = [
        sys.executable,
        __file__,
        *script_args,
        "--spark-master",
        master,
        "--spark-output",
        str(out),
    ]
    r = subprocess.run(args, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        tail = [ln for ln in r.stderr.strip().splitlines() if "Error" in ln or "Exception" in ln][
            -1:
        ] or ["?"]
        sys.exit(f"the Spark run on {master} failed (exit {r.returncode}): {tail[0][:300]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def compare(spark_out: Path, single: Path) -> tuple:
    """(reports compared, reports that differ) between a Spark parquet output and the CLI's."""
    import pyarrow.parquet as pq

    table = pq.read_table(str(spark_out), columns=["id", "deid_text", "phi", "status"]).to_pylist()
    n = differ = 0
    for row in table:
        if row["status"] != "ok":
            continue
        n += 1
        txt = single / f"{row['id']}.txt"
        ann = single / f"{row['id']}.ann"
        if not txt.exists():
            differ += 1
            continue
        spans = [
            tuple(line.split("\t")[1].split(" "))
            for line in ann.read_text(encoding="utf-8").splitlines()
        ]
        mine = [(p["label"], str(p["start"]), str(p["end"])) for p in row["phi"]]
        if txt.read_text(encoding="utf-8") != row["deid_text"] or spans != mine:
            differ += 1
    return n, differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, "pipeline name or path (the executors load it)")
    parser.add_argument(
        "--masters", default="local[1],local[2]", help="Spark masters to measure, comma-separated"
    )
    parser.add_argument("--work-dir", type=Path, default=Path("reports"))
    parser.add_argument("--spark-master", help=argparse.SUPPRESS)  # child process: one master
    parser.add_argument("--spark-output", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.spark_master:
        spark_child(args)
        return 0
    if not args.input_dir.is_dir():
        sys.exit(f"{args.input_dir}: not a folder")
    model = args.model if not Path(args.model).exists() else str(Path(args.model).resolve())
    args.work_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="benchmark_spark_", dir=args.work_dir)).resolve()
    env = env_with_key(secrets.token_hex(32))
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    try:
        inp = work / "in"
        n = select_inputs(args.input_dir, inp, args.limit)
        print(
            f"{n} reports, mode {args.mode}, batch size {args.batch_size}, {os.cpu_count()} CPUs; "
            f"reports/s with the model loaded"
        )
        rep = single_machine(model, inp, work / "single", args.mode, args.batch_size, 2, env)
        single_rate = rep["written_per_second"]
        print(
            f"single-machine CLI --n-process 2: {single_rate:.1f} reports/s "
            f"({rep['reports']['written']}/{n} written; model load "
            f"{rep['model_load_seconds']:.1f}s, wall {rep['wall']:.1f}s)"
        )
        child_args = [model, str(inp), "--mode", args.mode, "--batch-size", str(args.batch_size)]
        rates = {}
        out = None
        for master in [m.strip() for m in args.masters.split(",") if m.strip()]:
            out = work / f"spark_{master.replace('[', '_').replace(']', '').replace('*', 'all')}"
            res = run_spark_master(child_args, master, out, env)
            rows = res["rows"]
            rates[master] = rows["ok"] / res["seconds"] if res["seconds"] else float("nan")
            print(
                f"spark {master}: {rates[master]:.1f} reports/s ({rows['ok']}/{n} ok, "
                f"{rows['failed']} failed, rows in {rows['in']} out {rows['out']}; run "
                f"{res['seconds']:.1f}s; session start {res['session_seconds']:.1f}s, model "
                f"warm-up {res['warmup_seconds']:.1f}s in {res['workers_warmed']} workers)"
            )
        if "local[1]" in rates and "local[2]" in rates:
            print(
                f"local[2] / local[1]: {rates['local[2]'] / rates['local[1]']:.2f} (target >= 1.5)"
            )
        if "local[2]" in rates and single_rate:
            print(
                f"local[2] / single-machine --n-process 2: {rates['local[2]'] / single_rate:.2f} "
                "(target >= 0.70)"
            )
        compared, differ = compare(out, work / "single")
        print(
            f"spark output identical to the single-machine output: {differ == 0} "
            f"({compared} reports compared, {differ} differ)"
        )
        return 0 if differ == 0 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
