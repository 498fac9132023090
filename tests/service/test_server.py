"""The real server: `meddocan-deid serve` under uvicorn in a subprocess on 127.0.0.1 and a
free port, with a rule-only pipeline saved to disk (plus a component that can hold a
request, imported with --code). A few requests, then SIGTERM while a request is in flight:
that request completes, the server finishes its shutdown, and its output holds no PHI. Invented text."""
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
REPORT = "Datos del paciente.\nNombre: Casilda.\nApellidos: Urquijo Bermejo.\nNHC: 6620841.\nSexo: M.\n"
SECRETS = ("Casilda", "Urquijo", "6620841")
START_SECONDS = 180


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
    env = {**os.environ, "MEDDOCAN_TEST_HOLD_DIR": str(folder / "hold"),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "components"), os.environ.get("PYTHONPATH", "")])}
    log = open(folder / "server.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "meddocan_deid", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--model", str(folder / "model"), "--token-file", str(folder / "tokens.txt"),
                             "--code", str(Path(__file__).with_name("hold_component.py")), "--timeout", "60"],
                            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
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


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def test_page_runs_its_script_under_its_csp_in_chromium(server, tmp_path):
    """Needs `chromium` on PATH (.ci/run installs Debian's package when it is missing)."""
    _proc, base, _folder = server
    exe = shutil.which("chromium")
    assert exe, "chromium not found on PATH: apt-get install chromium (.ci/run does it)"
    r = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", f"{base}/"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-500:]
    assert 'data-script="ran"' in r.stdout  # the nonce in the CSP header matches the inline script
    assert 'id="text"' in r.stdout and 'id="run"' in r.stdout


def test_server_answers_then_drains_on_sigterm(server):
    proc, base, folder = server
    with httpx.Client(base_url=base, timeout=30) as c:
        assert c.get("/health").json()["status"] == "ok"
        assert c.post("/deidentify", json={"text": REPORT}).status_code == 401
        r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        assert r.status_code == 200
        assert not any(s in r.json()["text"] for s in SECRETS)
        presidio = c.post("/analyze", json={"text": REPORT, "language": "es"}, headers=AUTH).json()
        assert {REPORT[p["start"]:p["end"]] for p in presidio} >= {"Casilda", "Urquijo Bermejo", "6620841"}
        assert 'route="/deidentify",status="200"' in c.get("/metrics", headers=AUTH).text

    answer = {}

    def in_flight():
        with httpx.Client(base_url=base, timeout=60) as c:
            answer["r"] = c.post("/deidentify", json={"text": REPORT + HOLD_MARK + "\n"}, headers=AUTH)

    thread = threading.Thread(target=in_flight)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not (folder / "hold" / "entered").exists():
            assert time.monotonic() < deadline, "the held request never reached the pipeline"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        time.sleep(1.0)
        assert proc.poll() is None  # still draining: the request is not done
    finally:
        (folder / "hold" / "release").touch()
        thread.join(60)
    r = answer["r"]
    assert r.status_code == 200
    assert HOLD_MARK in r.json()["text"] and "Casilda" not in r.json()["text"]
    # uvicorn ends by re-raising the signal it handled: killed by SIGTERM, but after the drain
    assert proc.wait(30) in (0, -signal.SIGTERM)
    output = (folder / "server.log").read_text(errors="replace")
    assert "POST /deidentify 200" in output and "POST /deidentify 401" in output  # the service's own lines
    assert "Waiting for application shutdown" in output and "Finished server process" in output
    for s in SECRETS:
        assert s not in output
