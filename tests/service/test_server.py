"""The real server: `meddocan-deid serve` under uvicorn in a subprocess on 127.0.0.1 and a
free port, with a rule-only pipeline saved to disk (plus a component that can hold a
request, imported with --code). A few requests, then SIGTERM while MAX_CONCURRENT requests
are in flight (one held in the pipeline, the others admitted and waiting for it; a further
request answered 429 before the signal shows that every slot is taken): they all complete,
the server finishes its shutdown, and its output holds no PHI. Invented text."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import build_rule_nlp
from hold_component import HOLD_MARK

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "servidor-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
REPORT = (
    "Datos del paciente.\nNombre: Casilda.\nApellidos: Urquijo Bermejo.\nNHC: 6620841.\nSexo: M.\n"
)
SECRETS = ("Casilda", "Urquijo", "6620841")
START_SECONDS = 180
MAX_CONCURRENT = 3
MAX_PROBES = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("server")
    nlp = build_rule_nlp()
    nlp.add_pipe("test_hold", last=True)
    nlp.to_disk(folder / "model")
    (folder / "tokens.txt").write_text(TOKEN + "\n")
    (folder / "hold").mkdir()
    port = free_port()
    env = {
        **os.environ,
        "MEDDOCAN_TEST_HOLD_DIR": str(folder / "hold"),
        "PYTHONPATH": os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")]),
    }
    log = open(folder / "server.log", "wb")
    proc = subprocess.Popen(
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
            str(folder / "model"),
            "--token-file",
            str(folder / "tokens.txt"),
            "--code",
            str(Path(__file__).with_name("hold_component.py")),
            "--timeout",
            "60",
            "--max-concurrent",
            str(MAX_CONCURRENT),
            "--max-queue",
            "0",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert proc.poll() is None, (folder / "server.log").read_text(errors="replace")[-2000:]
            try:
                if httpx.get(f"{base}/ready", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server was not ready in time"
            time.sleep(0.25)
        yield proc, base, folder
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        log.close()


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def test_page_runs_its_script_under_its_csp_in_chromium(server, tmp_path):
    """Needs `chromium` on PATH (.ci/run installs Debian's package when it is missing)."""
    _proc, base, _folder = server
    exe = shutil.which("chromium")
    assert exe, "chromium not found on PATH: apt-get install chromium (.ci/run does it)"
    r = subprocess.run(
        [exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{base}/"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr[-500:]
    assert 'data-script="ran"' in r.stdout  # the nonce in the CSP header matches the inline script
    assert 'id="text"' in r.stdout and 'id="run"' in r.stdout
    assert 'id="scan-form"' in r.stdout and 'id="scan-file"' in r.stdout


def test_server_answers_then_drains_on_sigterm(server):
    proc, base, folder = server
    with httpx.Client(base_url=base, timeout=30) as c:
        assert c.get("/health").json()["status"] == "ok"
        assert c.post("/deidentify", json={"text": REPORT}).status_code == 401
        r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        assert r.status_code == 200
        assert not any(s in r.json()["text"] for s in SECRETS)
        presidio = c.post("/analyze", json={"text": REPORT, "language": "es"}, headers=AUTH).json()
        assert {REPORT[p["start"] : p["end"]] for p in presidio} >= {
            "Casilda",
            "Urquijo Bermejo",
            "6620841",
        }
        assert 'route="/deidentify",status="200"' in c.get("/metrics", headers=AUTH).text

    answers, refused_before_sigterm = [], []

    def post(text):
        with httpx.Client(base_url=base, timeout=60) as c:
            answers.append(c.post("/deidentify", json={"text": text}, headers=AUTH))

    held = threading.Thread(target=post, args=(REPORT + HOLD_MARK + "\n",))
    held.start()
    threads = [held]
    try:
        deadline = time.monotonic() + 30
        while not (folder / "hold" / "entered").exists():
            assert time.monotonic() < deadline, "the held request never reached the pipeline"
            time.sleep(0.05)
        for _ in range(MAX_CONCURRENT - 1):  # admitted, then waiting for the pipeline's lock
            threads.append(threading.Thread(target=post, args=(REPORT,)))
            threads[-1].start()
        # more requests until one is refused: then MAX_CONCURRENT are in flight (a probe that
        # gets a slot is one of them)
        for _ in range(MAX_PROBES):
            probe = threading.Thread(target=post, args=(REPORT,))
            probe.start()
            probe.join(1.0)
            threads.append(probe)
            refused_before_sigterm = [r for r in answers if r.status_code == 429]
            if refused_before_sigterm:
                break
        assert refused_before_sigterm, "no request was refused: the slots were not all taken"
        assert not [
            r for r in answers if r.status_code != 429
        ]  # the admitted ones are all still waiting
        proc.send_signal(signal.SIGTERM)
        time.sleep(1.0)
        assert proc.poll() is None  # still draining: the requests are not done
    finally:
        (folder / "hold" / "release").touch()
        for t in threads:
            t.join(60)
    statuses = sorted(r.status_code for r in answers)
    assert set(statuses) <= {200, 429}, statuses
    done = [r for r in answers if r.status_code == 200]
    assert len(done) == MAX_CONCURRENT, statuses  # each request in flight at SIGTERM was answered
    assert sum(HOLD_MARK in r.json()["text"] for r in done) == 1
    for r in done:
        assert "Casilda" not in r.json()["text"] and "6620841" not in r.json()["text"]
    # uvicorn ends by re-raising the signal it handled: killed by SIGTERM, but after the drain
    assert proc.wait(30) in (0, -signal.SIGTERM)
    output = (folder / "server.log").read_text(errors="replace")
    assert (
        "POST /deidentify 200" in output and "POST /deidentify 401" in output
    )  # the service's own lines
    assert "Waiting for application shutdown" in output and "Finished server process" in output
    for s in SECRETS:
        assert s not in output
