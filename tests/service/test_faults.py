"""Faults on a real socket: the app under uvicorn in a thread of the test, on 127.0.0.1 and a
free port, with the rule-only pipeline held in `pipe` until the test releases it. A client
that disconnects while its request is in the pipeline, or in the middle of its body, leaves
the server healthy: no 500, the request's slot (max_concurrent 1) is freed and the next
request is answered; the logs hold no PHI. Invented report."""

import json
import logging
import socket
import threading

import httpx
import pytest
import uvicorn
from test_service import AUTH, REPORT, SECRETS, HeldPipeline, files  # noqa: F401 (a fixture)

from meddocan_deid.service import ServiceSettings, create_app

START_TRIES = 400  # of 0.05 s each


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def live(files, rule_nlp, caplog):  # noqa: F811 (pytest injects the imported fixture)
    """(base URL, the held pipeline, caplog) of a server with max_concurrent 1 and no queue
    (a second request is refused at once)."""
    caplog.set_level(logging.DEBUG)
    tokens, key = files
    held = HeldPipeline(rule_nlp)
    app = create_app(
        ServiceSettings(token_file=tokens, key_file=key, max_concurrent=1, max_queue=0), nlp=held
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host="127.0.0.1",
            port=port,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=30,
        )
    )
    thread = threading.Thread(
        target=server.run, daemon=True
    )  # not the main thread: no signal handlers
    thread.start()
    try:
        for _ in range(START_TRIES):
            if server.started:
                break
            threading.Event().wait(0.05)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}", held, caplog
    finally:
        held.release.set()
        server.should_exit = True
        thread.join(60)
    assert not thread.is_alive()


def next_request_is_answered(base: str, held: HeldPipeline) -> httpx.Response:
    """A request after the fault; 429 while the pipeline still finishes the dropped one."""
    held.entered.clear()
    with httpx.Client(base_url=base, timeout=30) as c:
        for _ in range(200):
            r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
            if r.status_code != 429:
                return r
            threading.Event().wait(0.05)
    return r


def assert_clean_logs(caplog):
    lines = [r.getMessage() for r in caplog.records if r.name.startswith("meddocan_deid.service")]
    assert lines, "the service logged nothing"
    assert not [line for line in lines if " 500 " in line or "internal error" in line], lines
    everything = caplog.text + " ".join(str(r.args) for r in caplog.records)
    for s in SECRETS:
        assert s not in everything


def raw_post(base: str, body: bytes, content_length: int) -> socket.socket:
    host, port = base.rsplit("//", 1)[1].split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    head = (
        f"POST /deidentify HTTP/1.1\r\nHost: {host}\r\n{list(AUTH)[0]}: {AUTH['Authorization']}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {content_length}\r\n\r\n"
    ).encode()
    sock.sendall(head + body)
    return sock


def test_a_client_gone_while_its_request_is_in_the_pipeline(live):
    base, held, caplog = live
    body = f'{{"text": {json.dumps(REPORT)}}}'.encode()
    sock = raw_post(base, body, len(body))
    assert held.entered.wait(30), "the request never reached the pipeline"
    with httpx.Client(base_url=base, timeout=30) as c:  # its slot is taken: the only one
        assert c.post("/analyze", json={"text": REPORT}, headers=AUTH).status_code == 429
    sock.close()  # the client goes away before the answer
    held.release.set()
    r = next_request_is_answered(base, held)
    assert r.status_code == 200 and SECRETS[2] not in r.json()["text"]
    with httpx.Client(base_url=base, timeout=30) as c:
        assert c.get("/health").json()["status"] == "ok" and c.get("/ready").status_code == 200
    assert_clean_logs(caplog)


def test_a_client_gone_in_the_middle_of_its_body(live):
    base, held, caplog = live
    held.release.set()
    body = f'{{"text": {json.dumps(REPORT)}}}'.encode()
    sock = raw_post(base, body[: len(body) // 2], len(body))  # half the body it announced
    sock.close()
    r = next_request_is_answered(base, held)
    assert r.status_code == 200 and SECRETS[0] not in r.json()["text"]
    assert_clean_logs(caplog)


def test_faults_on_the_socket_are_4xx_without_phi_in_the_logs(live):
    """The request faults again, on a real socket: malformed JSON, a wrong type, an empty text,
    a body over the limit, bytes that are not UTF-8, no token and a wrong token."""
    base, held, caplog = live
    held.release.set()
    cases = [
        (b'{"text": "Nombre: Eulalia', AUTH, 422),
        (b'{"text": ["Eulalia"]}', AUTH, 422),
        (b'{"text": ""}', AUTH, 422),
        (b'{"text": "' + b"Eulalia " * 700_000 + b'"}', AUTH, 413),
        (b'{"text": "Marc\xf3 Bentabol"}', AUTH, 400),
        (b'{"text": "Eulalia"}', {}, 401),
        (b'{"text": "Eulalia"}', {"Authorization": "Bearer otra-ficha-equivocada-000"}, 401),
    ]
    with httpx.Client(base_url=base, timeout=30) as c:
        for content, headers, status in cases:
            r = c.post(
                "/deidentify",
                content=content,
                headers={**headers, "content-type": "application/json"},
            )
            assert r.status_code == status, (status, r.text[:200])
            for s in SECRETS + ("Marc",):
                assert s not in r.text
        assert c.post("/deidentify", json={"text": REPORT}, headers=AUTH).status_code == 200
    assert_clean_logs(caplog)
