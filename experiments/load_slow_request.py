"""Load test of `meddocan-deid serve` with one slow request among ordinary ones (not a test of
the suite; bounded in count and time, loopback only, stops by itself).

The server starts on 127.0.0.1 with MODEL (timeout --timeout, --max-concurrent slots). Phase 1:
CLIENTS clients send N ordinary requests (one report of REPORTS_DIR each). Phase 2: one request
of --slow-chars characters (reports put end to end, under the 1 MB body limit) and, while it
runs, the same N ordinary requests again; /ready and /metrics are read every second. Prints
the ordinary requests' p50/p95/p99 latency and errors in both phases, the slow request's status
and seconds, what /ready and /metrics showed while it ran, and how long after its answer its work
ended. Nothing of the reports is printed.

    python experiments/load_slow_request.py MODEL REPORTS_DIR [-n 200] [--clients 3] [--timeout 30]
"""

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from load_service import free_port, percentile  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("model")
    ap.add_argument("reports", type=Path)
    ap.add_argument("-n", type=int, default=200, help="ordinary requests per phase (default 200)")
    ap.add_argument("--clients", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=30.0, help="the server's request timeout")
    ap.add_argument("--max-concurrent", type=int, default=4)
    ap.add_argument("--slow-chars", type=int, default=950_000)
    ap.add_argument(
        "--max-seconds", type=float, default=600, help="stop sending after this, per phase"
    )
    args = ap.parse_args()
    texts = [
        t
        for t in (p.read_text(encoding="utf-8") for p in sorted(args.reports.rglob("*.txt")))
        if t.strip()
    ]
    slow_text, i = "", 0
    while len(slow_text) < args.slow_chars:
        slow_text += texts[i % len(texts)] + "\n\n"
        i += 1
    slow_text = slow_text[: args.slow_chars]
    token, port = secrets.token_urlsafe(32), free_port()
    base = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {token}"}
    with tempfile.TemporaryDirectory(prefix="load_slow_") as tmp:
        token_file = Path(tmp) / "tokens.txt"
        token_file.write_text(token + "\n")
        log = open(Path(tmp) / "server.log", "w", encoding="utf-8")
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "meddocan_deid",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--model",
                args.model,
                "--token-file",
                str(token_file),
                "--timeout",
                str(args.timeout),
                "--max-concurrent",
                str(args.max_concurrent),
                "--log-level",
                "warning",
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env={**os.environ, "MEDDOCAN_DEID_KEY": secrets.token_hex(32)},
        )
        try:
            start = time.monotonic()
            while True:
                try:
                    if httpx.get(f"{base}/ready", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if server.poll() is not None or time.monotonic() - start > 300:
                    sys.exit("the server did not become ready")
                time.sleep(0.5)

            def ordinary_phase():
                latencies, errors, lock, state = [], {}, threading.Lock(), {"next": 0}
                deadline = time.monotonic() + args.max_seconds

                def client():
                    with httpx.Client(base_url=base, timeout=120, headers=headers) as c:
                        while time.monotonic() < deadline:
                            with lock:
                                k = state["next"]
                                if k >= args.n:
                                    return
                                state["next"] += 1
                            t0 = time.perf_counter()
                            try:
                                code = c.post(
                                    "/deidentify", json={"text": texts[k % len(texts)]}
                                ).status_code
                            except httpx.HTTPError as err:
                                code = type(err).__name__
                            with lock:
                                if code == 200:
                                    latencies.append(time.perf_counter() - t0)
                                else:
                                    errors[str(code)] = errors.get(str(code), 0) + 1

                threads = [threading.Thread(target=client) for _ in range(args.clients)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                return latencies, errors

            def line(name, latencies, errors):
                print(
                    f"{name:<28}{len(latencies):>6} ok  p50 {percentile(latencies, 50):.3f} s  "
                    f"p95 {percentile(latencies, 95):.3f} s  p99 {percentile(latencies, 99):.3f} "
                    f"s  errors {errors}"
                )

            ordinary_phase()  # warm-up
            line("ordinary alone", *ordinary_phase())
            slow, seen = {}, []

            def send_slow():
                t0 = time.monotonic()
                try:
                    r = httpx.post(
                        f"{base}/deidentify", json={"text": slow_text}, headers=headers, timeout=300
                    )
                    slow["status"] = r.status_code
                except httpx.HTTPError as err:
                    slow["status"] = type(err).__name__
                slow["seconds"], slow["at"] = time.monotonic() - t0, time.monotonic()

            def watch():
                while "at" not in slow or time.monotonic() - slow["at"] < 30:
                    ready = httpx.get(f"{base}/ready", timeout=5)
                    metrics = httpx.get(f"{base}/metrics", headers=headers, timeout=5).text
                    gauges = {
                        k: float(v)
                        for k, v in (
                            ln.split()
                            for ln in metrics.splitlines()
                            if ln.startswith("meddocan_deid_requests_")
                            and " " in ln
                            and not ln.startswith("meddocan_deid_requests_total")
                        )
                        if k
                        in (
                            "meddocan_deid_requests_in_flight",
                            "meddocan_deid_requests_long_running",
                        )
                    }
                    seen.append((time.monotonic(), ready.status_code, ready.json(), gauges))
                    if "at" in slow and ready.json().get("long_running") == 0:
                        return
                    time.sleep(1)

            slow_thread, watch_thread = (
                threading.Thread(target=send_slow),
                threading.Thread(target=watch),
            )
            slow_thread.start()
            watch_thread.start()
            time.sleep(1)
            line("ordinary beside the slow one", *ordinary_phase())
            slow_thread.join()
            watch_thread.join()
            print(
                f"slow request: {len(slow_text)} characters, status {slow['status']} after "
                f"{slow['seconds']:.1f} s"
            )
            running = [s for s in seen if s[2].get("long_running")]
            print(
                f"/ready while it ran: {len(running)} readings with long_running 1 (statuses "
                f"{sorted({s[1] for s in running})}); /metrics long_running gauge seen 1: "
                f"{any(s[3].get('meddocan_deid_requests_long_running') == 1.0 for s in seen)}"
            )
            free = [s[0] for s in seen if s[0] >= slow["at"] and s[2].get("long_running") == 0]
            print(
                f"its work ended {free[0] - slow['at']:.1f} s after its answer (first reading)"
                if free
                else "its work was still running 30 s after its answer"
            )
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
