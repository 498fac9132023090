"""The service as clients expect it: a bounded admission queue whose refusals carry
Retry-After, the bearer scheme in the OpenAPI schema (/docs' Authorize button), errors that
name a wrong label (no PHI) but nothing of the text, the try-it page in English and Spanish,
and the README's lines on tokens and extras. FastAPI's TestClient and, for the burst, uvicorn
on 127.0.0.1; invented text only."""

import configparser
import re
import socket
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from meddocan_deid import LABELS
from meddocan_deid.service import ServiceSettings, create_app
from meddocan_deid.service.guard import PROTECTED, PUBLIC
from meddocan_deid.service.problems import closest_label, nameable, problem
from meddocan_deid.service.routes.page import accepted_languages, page_language

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "prueba-token-contrato-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
NAME, NHC = "Florinda", "8821934"
REPORT = f"Datos del paciente.\nNombre: {NAME}.\nApellidos: Quirós Albarrán.\nNHC: {NHC}.\n"


class HeldPipeline:
    """The rule pipeline, but `pipe` waits for `release` (sets `entered` first)."""

    def __init__(self, nlp):
        self._nlp = nlp
        self.entered = threading.Event()
        self.release = threading.Event()

    def __getattr__(self, name):
        return getattr(self._nlp, name)

    def pipe(self, texts):
        self.entered.set()
        assert self.release.wait(30), "the test never released the pipeline"
        return self._nlp.pipe(texts)


@pytest.fixture(scope="module")
def token_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("contract") / "tokens.txt"
    path.write_text(TOKEN + "\n", encoding="utf-8")
    return path


def make_client(token_file, nlp, **settings):
    return TestClient(create_app(ServiceSettings(token_file=token_file, **settings), nlp=nlp))


@pytest.fixture(scope="module")
def client(token_file, rule_nlp):
    with make_client(token_file, rule_nlp) as c:
        yield c


def post_in_thread(c, answers, key, path="/deidentify"):
    t = threading.Thread(
        target=lambda: answers.setdefault(key, c.post(path, json={"text": REPORT}, headers=AUTH))
    )
    t.start()
    return t


# -- admission: a bounded queue, then 429 with Retry-After -------------------------------------


def test_a_request_over_the_concurrency_waits_in_the_queue_and_is_answered(token_file, rule_nlp):
    held = HeldPipeline(rule_nlp)
    with make_client(token_file, held, max_concurrent=1, max_queue=1, queue_wait=20) as c:
        answers = {}
        first = post_in_thread(c, answers, "first")
        assert held.entered.wait(30)
        second = post_in_thread(c, answers, "second")
        engine = c.app.state.engine
        deadline = time.monotonic() + 10
        while engine.waiting != 1:  # the second request is in the queue
            assert time.monotonic() < deadline, "the second request never queued"
            time.sleep(0.01)
        assert c.get("/ready").json()["waiting"] == 1
        assert "meddocan_deid_requests_waiting 1.0" in c.get("/metrics", headers=AUTH).text
        third = c.post(
            "/analyze", json={"text": REPORT}, headers=AUTH
        )  # the queue is full: at once
        assert third.status_code == 429 and third.json()["error"] == "busy"
        assert int(third.headers["Retry-After"]) >= 1
        assert NAME not in third.text and NHC not in third.text
        held.release.set()
        first.join(30)
        second.join(30)
    assert answers["first"].status_code == answers["second"].status_code == 200
    assert NHC not in answers["second"].json()["text"]


def test_a_queued_request_gets_429_with_retry_after_when_its_wait_is_over(token_file, rule_nlp):
    held = HeldPipeline(rule_nlp)
    with make_client(
        token_file, held, max_concurrent=1, max_queue=4, queue_wait=0.3, request_timeout=20
    ) as c:
        answers = {}
        first = post_in_thread(c, answers, "first")
        try:
            assert held.entered.wait(30)
            start = time.monotonic()
            r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
            waited = time.monotonic() - start
        finally:
            held.release.set()
            first.join(30)
        assert r.status_code == 429 and "waited 0.3 s" in r.json()["detail"]
        assert 0.3 <= waited < 10
        assert 1 <= int(r.headers["Retry-After"]) <= 20
        assert c.app.state.engine.waiting == 0  # the queue let it go
        assert c.post("/deidentify", json={"text": REPORT}, headers=AUTH).status_code == 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def burst(app, n: int, clients: int) -> Counter:
    """`n` POST /deidentify from `clients` threads at uvicorn on 127.0.0.1: the statuses."""
    import uvicorn

    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    statuses, lock, left = Counter(), threading.Lock(), [n]

    def client():
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60, headers=AUTH) as c:
            while True:
                with lock:
                    if not left[0]:
                        return
                    left[0] -= 1
                r = c.post("/deidentify", json={"text": REPORT})
                with lock:
                    statuses[(r.status_code, "Retry-After" in r.headers)] += 1

    try:
        threads = [threading.Thread(target=client) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
    finally:
        server.should_exit = True
        thread.join(30)
    return statuses


def test_a_burst_over_the_concurrency_is_queued_not_refused(token_file, rule_nlp):
    """100 requests from 12 clients at a server that runs 4 at once: all answered."""
    app = create_app(
        ServiceSettings(token_file=token_file, max_concurrent=4, max_queue=16, queue_wait=60),
        rule_nlp,
    )
    statuses = burst(app, 100, 12)
    assert statuses == Counter({(200, False): 100}), statuses


def test_without_a_queue_the_burst_gets_429s_and_each_has_retry_after(token_file, rule_nlp):
    app = create_app(
        ServiceSettings(token_file=token_file, max_concurrent=1, max_queue=0), rule_nlp
    )
    statuses = burst(app, 60, 12)
    assert sum(statuses.values()) == 60 and statuses[(200, False)] >= 1
    assert statuses[(429, True)] >= 1 and set(statuses) <= {(200, False), (429, True)}, statuses


# -- the OpenAPI schema: the bearer scheme on the routes that need a token ------------------------


def test_the_openapi_schema_declares_the_bearer_scheme_on_the_protected_routes(client):
    schema = client.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "A token of the server's token file (`Authorization: Bearer <token>`).",
    }
    secured = {
        path
        for path, ops in schema["paths"].items()
        for op in ops.values()
        if {"bearer": []} in op.get("security", [])
    }
    assert secured == PROTECTED
    assert {path for path in schema["paths"]} - secured <= PUBLIC  # /health, /ready: no token
    docs = client.get("/docs").text
    assert "/openapi.json" in docs and '"persistAuthorization": false' in docs


def test_what_docs_sends_with_the_token_is_accepted_and_without_it_refused(client):
    r = client.post("/analyze", json={"text": REPORT}, headers=AUTH)
    assert r.status_code == 200
    r = client.post("/analyze", json={"text": REPORT})
    assert r.status_code == 401 and r.headers["WWW-Authenticate"] == "Bearer"


# -- errors name a wrong label (no PHI), never the text ------------------------------------------


def test_a_wrong_label_in_known_phi_is_named_with_the_closest_label(client):
    r = client.post(
        "/deidentify", json={"text": REPORT, "known_phi": {"NOMBRE_SUJETO": [NAME]}}, headers=AUTH
    )
    assert r.status_code == 422
    msg = r.json()["detail"][0]["msg"]
    assert "'NOMBRE_SUJETO'" in msg and "did you mean NOMBRE_SUJETO_ASISTENCIA?" in msg
    assert NAME not in r.text


def test_a_wrong_label_in_a_policy_is_named_but_a_name_used_as_a_label_is_not(client):
    r = client.post(
        "/deidentify",
        json={"text": REPORT, "policy": {"deny": [{"label": "FECHA_INGRESO", "strings": [NAME]}]}},
        headers=AUTH,
    )
    assert r.status_code == 422 and "'FECHA_INGRESO'" in r.text and NAME not in r.text
    r = client.post(
        "/deidentify",
        json={"text": REPORT, "policy": {"deny": [{"label": "Albarrán", "strings": [NAME]}]}},
        headers=AUTH,
    )
    assert (
        r.status_code == 422
        and "<value>" in r.text
        and "Albarr" not in r.text
        and NAME not in r.text
    )


def test_a_wrong_entity_name_of_analyze_is_named(client):
    r = client.post(
        "/analyze", json={"text": REPORT, "entities": ["PERSON", "NOMBRE_PACIENTE"]}, headers=AUTH
    )
    assert r.status_code == 422 and "entities[1]: 'NOMBRE_PACIENTE'" in r.text
    r = client.post("/analyze", json={"text": REPORT, "entities": [NAME]}, headers=AUTH)
    assert r.status_code == 422 and NAME not in r.text


@pytest.mark.parametrize(
    "value,named",
    [
        ("NOMBRE_SUJETO", True),
        ("ID_PACIENTE", True),
        ("HOSPITAL", True),
        ("keep", True),
        ("surrogate", True),
        ("PERSON", True),
        ("GARCIA", False),
        ("Ana Ruiz", False),
        ("12345678Z", False),
        ("ID_12345", False),
        ("ana_ruiz", False),
        ("X" * 30 + "_" + "Y" * 30, False),
    ],
)
def test_only_label_shaped_or_known_names_may_be_named(value, named):
    assert nameable(value) is named
    assert (repr(value) in problem(f"unknown label {value!r}")) is named


def test_the_closest_label_is_a_label_or_none():
    assert closest_label("NOMBRE_PERSONAL") == "NOMBRE_PERSONAL_SANITARIO"
    assert closest_label("NUMERO_TELEFONOS") == "NUMERO_TELEFONO"
    assert closest_label("ZZZ_QQQ") is None and closest_label("Ana") is None
    assert all(closest_label(label) == label for label in LABELS)


# -- the try-it page in English and Spanish -----------------------------------------------------


def test_the_page_follows_accept_language_and_the_switch(client):
    es = client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"})
    assert es.status_code == 200 and '<html lang="es">' in es.text and "Anonimizar" in es.text
    assert es.headers["Content-Language"] == "es" and "Accept-Language" in es.headers["Vary"]
    assert 'href="?lang=en"' in es.text and "De-identify" not in es.text
    en = client.get("/?lang=en", headers={"Accept-Language": "es"})  # the switch wins
    assert (
        '<html lang="en">' in en.text and "De-identify" in en.text and 'href="?lang=es"' in en.text
    )
    assert '<html lang="en">' in client.get("/").text  # no preference: English
    assert '<html lang="en">' in client.get("/?lang=xx", headers={"Accept-Language": "fr"}).text
    nonce = re.search(r"script-src 'nonce-([^']+)'", es.headers["Content-Security-Policy"]).group(1)
    assert f'<script nonce="{nonce}">' in es.text


@pytest.mark.parametrize(
    "header,best",
    [
        ("es-ES,es;q=0.9,en;q=0.5", "es"),
        ("en-GB;q=0.4, es;q=0.8", "es"),
        ("fr, en;q=0.1", "en"),
        ("es;q=0, en", "en"),
        ("*", "en"),
        ("", "en"),
        ("es;q=abc, en;q=0.2", "en"),
    ],
)
def test_accept_language_is_ranked_by_quality(header, best):
    assert page_language(None, header) == best


def test_accept_language_reads_a_bounded_number_of_ranges():
    assert len(accepted_languages(",".join(["fr"] * 1000))) == 20


# -- the README's lines ---------------------------------------------------------------------------


def test_the_readme_names_the_routes_that_need_the_token_and_every_extra():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if "need the bearer token" in line)
    for route in PROTECTED:  # `/analyze`, or `POST /deidentify`
        assert re.search(rf"[` ]{re.escape(route)}`", line), route
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    extras = set(cfg["options.extras_require"])
    lines = readme.splitlines()
    install = next(
        i
        for i, line in enumerate(lines)
        if line.startswith("pip install") and ".whl[service]" in line
    )
    # the comment under it: every extra
    named = set(re.findall(r"`([a-z0-9]+)`", lines[install + 1]))
    assert lines[install + 1].startswith("# extras:") and named == extras, extras ^ named


def test_the_public_routes_need_no_token(client):
    for path in ("/health", "/ready", "/", "/docs", "/redoc", "/openapi.json"):
        assert client.get(path).status_code == 200, path


@pytest.mark.parametrize(
    "value, shaped",
    [
        ("NOMBRE_SUJETO_ASISTENCIA", True),
        ("ID_SUJETO", True),
        ("FECHAS", False),
        ("ID__SUJETO", False),
        ("ID_", False),
        ("id_sujeto", False),
        ("ID_SUJETO2", False),
    ],
)
def test_a_label_shape_reads_as_before_its_rewrite(value, shaped):
    from meddocan_deid.service.problems import LABEL_SHAPED

    for pattern in (re.compile(r"[A-Z]+(?:_[A-Z]+)+"), LABEL_SHAPED):
        assert (pattern.fullmatch(value) is not None) == shaped
