"""Load test of `meddocan-deid serve` (not a test of the suite), bounded and stopping by
itself. It first runs `meddocan-deid deidentify` (the CLI, one process) on a sample of the
reports and reads its reports/s from the run report (model loading excluded), then starts
the server on 127.0.0.1 with MODEL and lets CLIENTS concurrent clients send requests, each
one report of REPORTS_DIR (`.txt`, recursive, in turn): WARMUP requests, then N timed
requests (throughput, latency), then more until MEMORY_REQUESTS requests have been sent
after the warm-up; then it stops the server (SIGTERM).

    python experiments/load_service.py MODEL REPORTS_DIR [-n 2000] [--clients 8] [--workers 1]
        [--warmup 100] [--memory-requests 5000] [--cli-reports 300] [--max-seconds 1800]

Prints the CLI's and the service's reports/s, the service's per worker and their ratio, the
latency percentiles (p50, p95, p99), the errors by status, and the resident memory (VmRSS,
/proc) of the server's process tree after the warm-up and at the end, with the growth.
Checks (exit status 1 when one fails): no error, per-worker/CLI ratio >= --min-ratio,
memory growth < --max-growth %. Bounded: each phase stops after its count or when
--max-seconds (for all the requests) has passed; the CLI run has the same limit. A random token is
written to a temporary folder (with the CLI's sample and output, removed at the end); the
surrogate key is random and lives only in the environments. Nothing of the reports is printed.
"""

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> int:
    """Resident memory of `pid` and its descendants (Linux /proc), in kB."""
    children = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def percentile(values, q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def run_cli(args, texts, tmp: Path, env) -> dict:
    """`meddocan-deid deidentify` on `texts` (a JSONL sample): its run report."""
    sample = tmp / "cli_sample.jsonl"
    with sample.open("w", encoding="utf-8") as f:
        for i, text in enumerate(texts):
            f.write(json.dumps({"id": f"r{i:05d}", "text": text}, ensure_ascii=False) + "\n")
    report = tmp / "cli_run_report.json"
    cmd = [
        sys.executable,
        "-m",
        "meddocan_deid",
        "deidentify",
        str(sample),
        str(tmp / "cli_out"),
        "--mode",
        args.mode,
        "--model",
        str(args.model),
        "--batch-size",
        str(args.cli_batch_size),
        "--report",
        str(report),
    ]
    if args.code:  # the CLI has no --code: the components' module must be importable (PYTHONPATH)
        sys.exit("--code is for the server only; give --cli-reports 0 with it")
    r = subprocess.run(
        cmd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=args.max_seconds,
    )
    if r.returncode != 0:
        sys.exit(f"the CLI run failed (exit {r.returncode}): {r.stderr[-1000:]}")
    return json.loads(report.read_text(encoding="utf-8"))


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("model", help="pipeline name or path")
    ap.add_argument("reports", type=Path, help="folder of .txt reports")
    ap.add_argument(
        "-n", type=int, default=2000, help="timed requests, after the warm-up (default 2000)"
    )
    ap.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    ap.add_argument("--mode", default="tag", choices=["tag", "mask", "redact", "surrogate"])
    ap.add_argument(
        "--workers", type=int, default=1, help="uvicorn workers of the server (default 1)"
    )
    ap.add_argument(
        "--warmup",
        type=int,
        default=100,
        help="requests before the timing and the first memory reading (default 100)",
    )
    ap.add_argument(
        "--memory-requests",
        type=int,
        default=5000,
        help="requests after the warm-up at whose end memory is read again (default 5000; "
        "at least N)",
    )
    ap.add_argument(
        "--cli-reports",
        type=int,
        default=300,
        help="reports of the CLI's run (the first of the timed ones; default 300; 0: no CLI run)",
    )
    ap.add_argument(
        "--cli-batch-size", type=int, default=32, help="the CLI's --batch-size (default 32)"
    )
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=1800,
        help="stop sending after this, all phases together; also the CLI run's limit (default "
        "1800)",
    )
    ap.add_argument("--start-seconds", type=float, default=300, help="wait at most this for /ready")
    ap.add_argument(
        "--min-ratio",
        type=float,
        default=0.9,
        help="check: per-worker / CLI reports/s (default 0.9)",
    )
    ap.add_argument(
        "--max-growth", type=float, default=10.0, help="check: memory growth in %% (default 10)"
    )
    ap.add_argument(
        "--code", type=Path, help="Python file the server imports first (custom components)"
    )
    ap.add_argument(
        "--server-log",
        type=Path,
        help="keep the server's log here (routes, statuses, counts; never text)",
    )
    args = ap.parse_args()
    memory_requests = max(args.memory_requests, args.n)

    texts = [p.read_text(encoding="utf-8") for p in sorted(args.reports.rglob("*.txt"))]
    texts = [t for t in texts if t.strip()]
    if not texts:
        sys.exit(f"{args.reports}: no non-empty .txt reports")

    def text_of(i: int) -> str:  # request i (0-based, the warm-up first)
        return texts[i % len(texts)]

    token = secrets.token_urlsafe(32)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    load_avg = [os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="load_service_") as tmp:
        env = {**os.environ, "MEDDOCAN_DEID_KEY": secrets.token_hex(32)}
        cli = None
        if args.cli_reports > 0:
            cli_texts = [text_of(args.warmup + i) for i in range(min(args.cli_reports, args.n))]
            cli = run_cli(args, cli_texts, Path(tmp), env)
            cli["chars"] = sum(map(len, cli_texts)) / len(cli_texts)
        load_avg.append(os.getloadavg())
        token_file = Path(tmp) / "tokens.txt"
        token_file.write_text(token + "\n")
        os.chmod(token_file, 0o600)
        cmd = [
            sys.executable,
            "-m",
            "meddocan_deid",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--model",
            str(args.model),
            "--token-file",
            str(token_file),
            "--workers",
            str(args.workers),
            "--max-concurrent",
            str(args.clients),
            "--log-level",
            "info",
        ]
        if args.code:
            cmd += ["--code", str(args.code)]
        start = time.monotonic()
        # the server's log goes to a file, never a pipe that nobody reads while the load runs
        # (a full pipe would block the worker that writes to it)
        server_log = args.server_log or Path(tmp) / "server.log"
        log_handle = open(server_log, "w", encoding="utf-8")
        server = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=log_handle, text=True
        )
        try:
            while True:
                if server.poll() is not None:
                    sys.exit(
                        f"the server stopped (exit {server.returncode}): "
                        f"{server_log.read_text(encoding='utf-8')[-1000:]}"
                    )
                try:
                    # with several workers each loads its pipeline: wait until a round of
                    # /ready answers are all 200 (a worker still loading answers 503)
                    if all(
                        httpx.get(f"{base}/ready", timeout=2).status_code == 200
                        for _ in range(4 * args.workers)
                    ):
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() - start > args.start_seconds:
                    sys.exit(f"the server was not ready after {args.start_seconds:.0f} s")
                time.sleep(0.25)
            ready_s = time.monotonic() - start

            lock = threading.Lock()
            deadline = time.monotonic() + args.max_seconds
            state = {"next": 0, "stop": 0}
            latencies, errors = [], {}

            def client():
                headers = {"Authorization": f"Bearer {token}"}
                with httpx.Client(base_url=base, timeout=120, headers=headers) as c:
                    while time.monotonic() < deadline:
                        with lock:
                            i = state["next"]
                            if i >= state["stop"]:
                                return
                            state["next"] += 1
                        t0 = time.perf_counter()
                        try:
                            r = c.post("/deidentify", json={"text": text_of(i), "mode": args.mode})
                            outcome = r.status_code
                        except httpx.HTTPError as err:
                            outcome = type(err).__name__
                        elapsed = time.perf_counter() - t0
                        with lock:
                            if outcome == 200:
                                latencies.append(elapsed)
                            else:
                                errors[str(outcome)] = errors.get(str(outcome), 0) + 1

            def phase(stop: int) -> float:
                """Send requests up to number `stop` (all clients); the seconds it took."""
                state["stop"] = stop
                t0 = time.monotonic()
                threads = [threading.Thread(target=client) for _ in range(args.clients)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                return time.monotonic() - t0

            phase(args.warmup)
            warm_ok, warm_errors = len(latencies), dict(errors)
            latencies.clear()
            errors.clear()
            rss_warm = rss_kb(server.pid)
            seconds = phase(args.warmup + args.n)
            timed, timed_errors = list(latencies), dict(errors)
            timed_sent = state["next"] - args.warmup
            rss_steps = [(timed_sent, rss_kb(server.pid))]
            while state["next"] < args.warmup + memory_requests and time.monotonic() < deadline:
                phase(min(state["next"] + 1000, args.warmup + memory_requests))
                rss_steps.append((state["next"] - args.warmup, rss_kb(server.pid)))
            rss_end = rss_steps[-1][1]
            load_avg.append(os.getloadavg())
            all_errors = dict(warm_errors)
            for k, v in errors.items():
                all_errors[k] = all_errors.get(k, 0) + v
            sent_after_warmup = state["next"] - args.warmup
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(60)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait(10)
            log_handle.close()
        # uvicorn's supervisor logs a worker it killed and restarted (its health ping timed out)
        log_lines = server_log.read_text(encoding="utf-8").splitlines()
        restarts = sum("died" in line for line in log_lines)
        log_errors = sum(line.startswith(("ERROR", "CRITICAL")) for line in log_lines)

    print(
        f"model {args.model}: {len(texts)} distinct reports, mode {args.mode}, {args.clients} "
        f"clients, {args.workers} worker(s); server ready after {ready_s:.1f} s; cores "
        f"{os.cpu_count()}"
    )
    print(
        "load average (1 min) at the start, after the CLI run, at the end: "
        + ", ".join(f"{la[0]:.2f}" for la in load_avg)
    )
    checks = []
    n_errors = sum(all_errors.values())
    print(f"warm-up: {args.warmup} requests, ok {warm_ok}")
    print(
        f"timed: requests {timed_sent} (of {args.n}), ok {len(timed)}, errors "
        f"{sum(timed_errors.values())} {timed_errors or ''}"
    )
    service_rate = len(timed) / seconds if seconds > 0 else float("nan")
    per_worker = service_rate / args.workers
    print(
        f"service: {service_rate:.2f} reports/s over {seconds:.1f} s, {per_worker:.2f} reports/s "
        "per worker"
    )
    print(
        "latency p50 {:.0f} ms, p95 {:.0f} ms, p99 {:.0f} ms".format(
            *(1000 * percentile(timed, q) for q in (50, 95, 99))
        )
    )
    if cli is not None:
        cli_rate = cli["written_per_second"]
        ratio = per_worker / cli_rate
        print(
            f"CLI (meddocan-deid deidentify, 1 process, batch {args.cli_batch_size}, files "
            f"written): {cli['reports'].get('written', 0)} reports, {cli_rate:.2f} reports/s "
            f"(model load {cli['model_load_seconds']:.1f} s excluded), {cli['chars']:.0f} "
            "chars/report"
        )
        print(f"ratio service per worker / CLI: {ratio:.2f}")
        checks.append((f"ratio >= {args.min_ratio:g}", ratio >= args.min_ratio))
    growth = 100 * (rss_end - rss_warm) / rss_warm
    print(
        f"server resident memory: {rss_warm / 1024:.0f} MB after the warm-up, "
        f"{rss_end / 1024:.0f} MB after {sent_after_warmup} more requests (of "
        f"{memory_requests}): growth {growth:+.1f}%"
    )
    print(
        "resident memory after k requests (after the warm-up): "
        + ", ".join(f"{k}: {kb / 1024:.0f} MB" for k, kb in rss_steps)
    )
    print(
        f"errors in all: {n_errors} {all_errors or ''}; server log: {restarts} worker restarts, "
        f"{log_errors} error lines"
    )
    checks.append(("0 errors", n_errors == 0))
    checks.append((f"all {memory_requests} requests sent", sent_after_warmup == memory_requests))
    checks.append((f"memory growth < {args.max_growth:g}%", growth < args.max_growth))
    print("checks: " + ", ".join(f"{name} {'ok' if ok else 'FAILED'}" for name, ok in checks))
    if not all(ok for _name, ok in checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
