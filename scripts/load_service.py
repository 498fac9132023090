"""Load test of `meddocan-deid serve` (not a test of the suite): starts the server on
127.0.0.1 with MODEL, lets CLIENTS concurrent clients send N requests of the reports of
REPORTS_DIR (`.txt`, recursive; each request one report, in turn), then stops the server.

    python scripts/load_service.py MODEL REPORTS_DIR [-n 2000] [--clients 8] [--mode tag]
        [--workers 1] [--max-seconds 600] [--code FILE]

Prints the throughput, the latency percentiles (p50, p95, p99), the errors by status and the
resident memory of the server (its process tree) once ready and at the end. Bounded: it
stops after N requests or --max-seconds, whichever comes first. A random token is written
to a temporary file; the surrogate key (for --mode surrogate) is random and lives only in the
server's environment. Nothing of the reports is printed.
"""
import argparse
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", help="pipeline name or path")
    ap.add_argument("reports", type=Path, help="folder of .txt reports")
    ap.add_argument("-n", type=int, default=2000, help="requests in all (default 2000)")
    ap.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    ap.add_argument("--mode", default="tag", choices=["tag", "mask", "redact", "surrogate"])
    ap.add_argument("--workers", type=int, default=1, help="uvicorn workers of the server")
    ap.add_argument("--max-seconds", type=float, default=600, help="stop sending after this (default 600)")
    ap.add_argument("--start-seconds", type=float, default=300, help="wait at most this for /ready")
    ap.add_argument("--code", type=Path, help="Python file the server imports first (custom components)")
    args = ap.parse_args()

    texts = [p.read_text(encoding="utf-8") for p in sorted(args.reports.rglob("*.txt"))]
    texts = [t for t in texts if t.strip()]
    if not texts:
        sys.exit(f"{args.reports}: no non-empty .txt reports")
    token = secrets.token_urlsafe(32)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="load_service_") as tmp:
        token_file = Path(tmp) / "tokens.txt"
        token_file.write_text(token + "\n")
        os.chmod(token_file, 0o600)
        env = {**os.environ, "MEDDOCAN_DEID_KEY": secrets.token_hex(32)}
        cmd = [sys.executable, "-m", "meddocan_deid", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--model", str(args.model), "--token-file", str(token_file), "--workers", str(args.workers),
               "--max-concurrent", str(args.clients), "--log-level", "warning"]
        if args.code:
            cmd += ["--code", str(args.code)]
        start = time.monotonic()
        server = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            while True:
                if server.poll() is not None:
                    sys.exit(f"the server stopped (exit {server.returncode}): {server.stderr.read()[-1000:]}")
                try:
                    if httpx.get(f"{base}/ready", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() - start > args.start_seconds:
                    sys.exit(f"the server was not ready after {args.start_seconds:.0f} s")
                time.sleep(0.25)
            ready_s = time.monotonic() - start
            rss_start = rss_kb(server.pid)

            lock = threading.Lock()
            state = {"next": 0}
            latencies, errors = [], {}
            deadline = time.monotonic() + args.max_seconds

            def client():
                headers = {"Authorization": f"Bearer {token}"}
                with httpx.Client(base_url=base, timeout=120, headers=headers) as c:
                    while time.monotonic() < deadline:
                        with lock:
                            i = state["next"]
                            if i >= args.n:
                                return
                            state["next"] += 1
                        t0 = time.perf_counter()
                        try:
                            r = c.post("/deidentify", json={"text": texts[i % len(texts)], "mode": args.mode})
                            outcome = r.status_code
                        except httpx.HTTPError as err:
                            outcome = type(err).__name__
                        elapsed = time.perf_counter() - t0
                        with lock:
                            if outcome == 200:
                                latencies.append(elapsed)
                            else:
                                errors[str(outcome)] = errors.get(str(outcome), 0) + 1

            t0 = time.monotonic()
            threads = [threading.Thread(target=client) for _ in range(args.clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            seconds = time.monotonic() - t0
            rss_end = rss_kb(server.pid)
        finally:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(60)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait(10)
    sent = len(latencies) + sum(errors.values())
    print(f"model {args.model}: {len(texts)} distinct reports, mode {args.mode}, {args.clients} clients, "
          f"{args.workers} worker(s); server ready after {ready_s:.1f} s")
    print(f"requests {sent} (of {args.n}), ok {len(latencies)}, errors {sum(errors.values())} {errors or ''}")
    print(f"throughput {len(latencies) / seconds:.1f} requests/s over {seconds:.1f} s")
    print("latency p50 {:.1f} ms, p95 {:.1f} ms, p99 {:.1f} ms".format(
        *(1000 * percentile(latencies, q) for q in (50, 95, 99))))
    print(f"server resident memory: {rss_start / 1024:.0f} MB when ready, {rss_end / 1024:.0f} MB at the end")


if __name__ == "__main__":
    main()
