"""One slow request among ordinary ones: it runs in the long lane piece by piece, ordinary
requests go between its pieces and are answered, /ready and /metrics show it while it runs,
and at its timeout its work stops, so that its slot is free again. Invented text only; no
test asserts a wall-clock time."""

import threading
import time

from fastapi.testclient import TestClient

from meddocan_deid.service import ServiceSettings, create_app
from meddocan_deid.service.engine import LONG_PIECE_CHARS, SHORT_CHARS

TOKEN = "prueba-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
REPORT = "Datos del paciente.\nNombre: Eulalia.\nApellidos: Marcó Bentabol.\nNHC: 7734519.\n"
SLOW_MARK = "lentitud"
PIECE_SECONDS = 0.25


class SlowPipeline:
    """The rule pipeline; a call whose texts hold SLOW_MARK takes PIECE_SECONDS a text and is
    counted."""

    def __init__(self, nlp):
        self._nlp = nlp
        self.slow_calls = 0

    def __getattr__(self, name):
        return getattr(self._nlp, name)

    def pipe(self, texts):
        texts = list(texts)
        if any(SLOW_MARK in t for t in texts):
            self.slow_calls += 1
            time.sleep(PIECE_SECONDS * len(texts))
        return self._nlp.pipe(texts)


def make_client(tmp_path, nlp, **settings):
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(TOKEN + "\n", encoding="utf-8")
    return TestClient(create_app(ServiceSettings(token_file=tokens, **settings), nlp=nlp))


def wait_for(condition, seconds=20.0):
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "the condition never held"
        time.sleep(0.02)


def test_a_slow_request_stops_at_its_timeout_and_the_others_are_answered(tmp_path, rule_nlp):
    slow = SlowPipeline(rule_nlp)
    long_text = ("Texto de " + SLOW_MARK + " sin datos.\n") * (10 * SHORT_CHARS // 30)
    pieces = len(long_text) // LONG_PIECE_CHARS
    assert (
        len(long_text) > SHORT_CHARS and pieces * PIECE_SECONDS > 8
    )  # far longer than its timeout
    with make_client(tmp_path, slow, request_timeout=2.0, max_concurrent=2) as client:
        answer = {}
        thread = threading.Thread(
            target=lambda: answer.update(
                r=client.post("/deidentify", json={"text": long_text}, headers=AUTH)
            )
        )
        thread.start()
        engine = client.app.state.engine
        wait_for(lambda: engine.long_running == 1)
        ready = client.get("/ready").json()
        assert ready["status"] == "ready" and ready["in_flight"] == 1 and ready["long_running"] == 1
        metrics = client.get("/metrics", headers=AUTH).text
        assert "meddocan_deid_requests_in_flight 1.0" in metrics
        assert "meddocan_deid_requests_long_running 1.0" in metrics
        ordinary = []
        while (
            engine.long_running and len(ordinary) < 20
        ):  # ordinary requests while the slow one runs
            r = client.post("/deidentify", json={"text": REPORT}, headers=AUTH)
            ordinary.append((r.status_code, engine.long_running))
        assert ordinary and all(code == 200 for code, _ in ordinary)
        assert any(
            running for _, running in ordinary
        )  # answered while the slow one was still running
        thread.join(30)
        assert answer["r"].status_code == 504 and answer["r"].json()["error"] == "timeout"
        wait_for(lambda: engine.in_flight == 0)  # its work stopped: the slot is free again
        assert slow.slow_calls < pieces  # stopped at its deadline, not at the end of the text
        assert client.post("/deidentify", json={"text": REPORT}, headers=AUTH).status_code == 200
        assert client.get("/ready").json()["status"] == "ready"


def test_ready_says_busy_while_every_slot_is_taken(tmp_path, rule_nlp):
    slow = SlowPipeline(rule_nlp)
    long_text = ("Texto de " + SLOW_MARK + " sin datos.\n") * (2 * SHORT_CHARS // 30)
    with make_client(tmp_path, slow, request_timeout=1.0, max_concurrent=1, max_queue=0) as client:
        thread = threading.Thread(
            target=lambda: client.post("/deidentify", json={"text": long_text}, headers=AUTH)
        )
        thread.start()
        engine = client.app.state.engine
        wait_for(lambda: engine.in_flight == 1)
        r = client.get("/ready")
        assert r.status_code == 503 and r.json()["status"] == "busy"
        assert client.post("/deidentify", json={"text": REPORT}, headers=AUTH).status_code == 429
        thread.join(30)
        wait_for(lambda: engine.in_flight == 0)
        assert client.get("/ready").status_code == 200


def test_a_long_request_that_never_gets_a_turn_is_a_504(tmp_path, rule_nlp):
    # its deadline passes while it waits for ordinary requests: the answer is the timeout, not
    # an error
    slow = SlowPipeline(rule_nlp)
    long_text = ("Texto de " + SLOW_MARK + " sin datos.\n") * (2 * SHORT_CHARS // 30)
    with make_client(tmp_path, slow, request_timeout=0.5, max_concurrent=2) as client:
        engine = client.app.state.engine
        with engine._turn:
            engine._ordinary_active += 1  # an ordinary request in flight all along
        try:
            r = client.post("/deidentify", json={"text": long_text}, headers=AUTH)
        finally:
            with engine._turn:
                engine._ordinary_active -= 1
                engine._turn.notify_all()
        assert r.status_code == 504 and r.json()["error"] == "timeout"
        wait_for(lambda: engine.in_flight == 0)
        assert slow.slow_calls == 0
