"""A burst of requests at the service, bounded, on 127.0.0.1 only (not a test of the suite).

    python experiments/burst_service.py MODEL REPORTS_DIR [-n 100] [--clients 12] \
        [--max-concurrent 4]
        [--max-queue Q] [--queue-wait S] [--max-seconds 300]

Starts the app (`create_app`, the pipeline MODEL loaded once) under uvicorn in this process on
127.0.0.1 and a free port, then CLIENTS threads send N POST /deidentify requests in all, each
one report of REPORTS_DIR (`.txt`, recursive, in turn). Prints the answers by status, how many
429s carried a Retry-After header, and the latency percentiles; nothing of the reports. Bounded:
each request has a timeout, and the burst stops after --max-seconds. --max-queue and
--queue-wait are passed only when given (a server without a queue takes neither).
"""

import argparse
import secrets
import socket
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("reports", type=Path)
    parser.add_argument("-n", type=int, default=100)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--max-concurrent", type=int, default=4)
    parser.add_argument("--max-queue", type=int, default=None)
    parser.add_argument("--queue-wait", type=float, default=None)
    parser.add_argument("--timeout", type=float, default=30.0, help="the server's request_timeout")
    parser.add_argument("--max-seconds", type=float, default=300.0)
    args = parser.parse_args()

    import uvicorn

    from meddocan_deid.pipeline.loading import load_model
    from meddocan_deid.service import ServiceSettings, create_app

    texts = [p.read_text(encoding="utf-8") for p in sorted(args.reports.rglob("*.txt"))]
    if not texts:
        print(f"no .txt under {args.reports}", file=sys.stderr)
        return 2
    token = secrets.token_urlsafe(24)
    queue = {
        k: v
        for k, v in (("max_queue", args.max_queue), ("queue_wait", args.queue_wait))
        if v is not None
    }
    with tempfile.TemporaryDirectory() as tmp:
        tokens = Path(tmp) / "tokens.txt"
        tokens.write_text(token + "\n", encoding="utf-8")
        settings = ServiceSettings(
            token_file=tokens,
            model=args.model,
            max_concurrent=args.max_concurrent,
            request_timeout=args.timeout,
            **queue,
        )
        app = create_app(settings, nlp=load_model(args.model, None))
        port = free_port()
        server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                print("the server did not start", file=sys.stderr)
                return 2
            time.sleep(0.05)

        lock = threading.Lock()
        statuses, retry_after, latencies = Counter(), Counter(), []
        sent = {"n": 0}
        stop_at = time.monotonic() + args.max_seconds

        def client():
            with httpx.Client(
                base_url=base,
                timeout=args.timeout + 30,
                headers={"Authorization": f"Bearer {token}"},
            ) as c:
                while True:
                    with lock:
                        if sent["n"] >= args.n or time.monotonic() > stop_at:
                            return
                        i = sent["n"]
                        sent["n"] += 1
                    start = time.perf_counter()
                    try:
                        r = c.post("/deidentify", json={"text": texts[i % len(texts)]})
                        status = str(r.status_code)
                        has_retry = "Retry-After" in r.headers
                    except httpx.HTTPError as err:
                        status, has_retry = type(err).__name__, False
                    with lock:
                        statuses[status] += 1
                        latencies.append(time.perf_counter() - start)
                        if status == "429":
                            retry_after["with Retry-After" if has_retry else "bare"] += 1

        started = time.perf_counter()
        threads = [threading.Thread(target=client) for _ in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(args.max_seconds + args.timeout + 60)
        wall = time.perf_counter() - started
        server.should_exit = True
        thread.join(30)
    settings = ", ".join(f"{k} {v}" for k, v in sorted(queue.items())) or "queue settings not given"
    print(
        f"{sum(statuses.values())} requests, {args.clients} clients, "
        f"max_concurrent {args.max_concurrent}, {settings}: {wall:.1f} s"
    )
    print("statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    if retry_after:
        print("429s: " + ", ".join(f"{k}: {v}" for k, v in sorted(retry_after.items())))
    print(
        f"latency p50 {percentile(latencies, 50):.3f} s, p95 {percentile(latencies, 95):.3f} s, "
        f"max {max(latencies, default=float('nan')):.3f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
