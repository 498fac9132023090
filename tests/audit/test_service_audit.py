"""The service's audit trail: one line per request (any route, any answer), the token's id and
never the token, the digests of the request and of the answer, the counts; and a bounded load
test on a loopback socket (uvicorn in a thread): every request leaves exactly one line and the
chain stays whole. Invented report."""

import hashlib
import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from meddocan_deid.audit import verify_target
from meddocan_deid.audit.service import token_id
from meddocan_deid.service import ServiceSettings, create_app

TOKEN = "token-de-prueba-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
KEY = "clave inventada para las pruebas, 32+"
NAME, NHC = "Remedios", "6620431"
REPORT = f"Nombre: {NAME}.\nApellidos: Quintana Lobo.\nNHC: {NHC}.\nMujer de 51 años.\n"
LOAD_REQUESTS = 48
LOAD_THREADS = 8


@pytest.fixture
def settings(tmp_path):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    key = tmp_path / "deid.key"
    key.write_text(KEY + "\n", encoding="utf-8")
    return dict(token_file=tokens, key_file=key, audit_log=tmp_path / "logs" / "audit.jsonl")


def lines_of(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_one_line_per_request_with_digests_and_no_secret(settings, rule_nlp):
    body = json.dumps({"text": REPORT, "mode": "surrogate"}).encode("utf-8")
    with TestClient(create_app(ServiceSettings(**settings), nlp=rule_nlp)) as client:
        ok = client.post(
            "/deidentify", content=body, headers={**AUTH, "Content-Type": "application/json"}
        )
        refused = client.post("/deidentify", json={"text": REPORT})
        health = client.get("/health")
        bad = client.post("/deidentify", json={"text": REPORT, "mode": "borrar"}, headers=AUTH)
    assert (ok.status_code, refused.status_code, health.status_code) == (200, 401, 200)
    assert bad.status_code == 422
    log = settings["audit_log"]
    first, second, third, fourth = lines_of(log)
    assert first["route"] == "/deidentify" and first["status"] == 200
    assert first["user"] == token_id(TOKEN) and first["outcome"] == "ok"
    assert first["mode"] == "surrogate" and first["counts"] == {"texts": 1}
    assert first["input_sha256"] == hashlib.sha256(body).hexdigest()
    assert first["output_sha256"] == hashlib.sha256(ok.content).hexdigest()
    assert first["phi_per_label"]["NOMBRE_SUJETO_ASISTENCIA"] >= 1
    assert first["key_fingerprint"] not in ("none", KEY) and len(first["key_fingerprint"]) == 64
    assert second["user"] is None and second["outcome"] == "error: 401"
    assert third["route"] == "/health" and third["input_sha256"] is None
    assert fourth["outcome"] == "error: 422"
    text = log.read_text(encoding="utf-8")
    for secret in (TOKEN, KEY, NAME, NHC, "Quintana"):
        assert secret not in text
    assert verify_target(log).ok


def test_an_unwritable_log_stops_the_server_at_start(settings, rule_nlp, tmp_path):
    from meddocan_deid.service import ServiceSettingsError

    with pytest.raises(ServiceSettingsError, match="is a folder"):
        create_app(ServiceSettings(**{**settings, "audit_log": tmp_path}), nlp=rule_nlp)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_loopback_load_leaves_one_line_per_request(settings, rule_nlp):
    app = create_app(
        ServiceSettings(**settings, max_concurrent=2, max_queue=LOAD_REQUESTS, queue_wait=60),
        nlp=rule_nlp,
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_config=None, access_log=False, lifespan="on"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(400):
            if server.started:
                break
            threading.Event().wait(0.05)
        assert server.started

        def one(i: int) -> int:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
                text = REPORT.replace(NHC, str(6620000 + i))
                route = "/analyze" if i % 3 == 0 else "/deidentify"
                return c.post(route, json={"text": text}, headers=AUTH).status_code

        with ThreadPoolExecutor(LOAD_THREADS) as pool:
            statuses = list(pool.map(one, range(LOAD_REQUESTS)))
    finally:
        server.should_exit = True
        thread.join(60)
    assert statuses == [200] * LOAD_REQUESTS
    entries = lines_of(settings["audit_log"])
    assert len(entries) == LOAD_REQUESTS
    assert sorted(e["seq"] for e in entries) == list(range(1, LOAD_REQUESTS + 1))
    assert {e["route"] for e in entries} == {"/analyze", "/deidentify"}
    assert len({e["input_sha256"] for e in entries}) == LOAD_REQUESTS  # each request its own
    assert verify_target(settings["audit_log"]).ok
