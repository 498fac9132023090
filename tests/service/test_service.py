"""The HTTP service (meddocan_deid.service) on the rule-only pipeline, through FastAPI's
TestClient: every route, auth, limits (413, 429, 504), errors that never echo the request,
logs and metrics without text, and answers equal to the library's own de-identification.
Invented reports only."""

import json
import logging
import threading
import time

import pytest
from fastapi.testclient import TestClient

import meddocan_deid
from meddocan_deid.deid.pieces import doc_spans
from meddocan_deid.presidio_entities import presidio_entity
from meddocan_deid.service import ServiceSettings, ServiceSettingsError, create_app

TOKEN = "prueba-token-0123456789abcdef"
OTHER_TOKEN = "otro-token-fedcba9876543210"
KEY = "clave de prueba inventada, 32 bytes+"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
# invented report; these strings must never appear in an error, a log line or the metrics
NAME, SURNAMES, NHC = "Eulalia", "Marcó Bentabol", "7734519"
REPORT = (
    f"Datos del paciente.\nNombre: {NAME}.\nApellidos: {SURNAMES}.\nNHC: {NHC}.\n"
    "Edad: 38 años Sexo: M.\n"
    "Informe clínico del paciente: mujer de 38 años que acude por dolor abdominal.\n"
)
SECRETS = (NAME, SURNAMES, NHC, "Bentabol")


class HeldPipeline:
    """The rule pipeline, but `pipe` waits for `release` (set `entered` first)."""

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


@pytest.fixture(autouse=True)
def no_phi_in_logs(caplog):
    """Every test of this file: whatever the service logged (any level) holds no PHI."""
    caplog.set_level(logging.DEBUG)
    yield
    everything = caplog.text + " ".join(str(r.args) for r in caplog.records)
    for s in SECRETS:
        assert s not in everything


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("service")
    tokens = folder / "tokens.txt"
    tokens.write_text(f"# service tokens\n{TOKEN}\n\n{OTHER_TOKEN}\n", encoding="utf-8")
    key = folder / "deid.key"
    key.write_text(KEY + "\n", encoding="utf-8")
    return tokens, key


def make_client(files, nlp, **settings):
    tokens, key = files
    settings.setdefault("key_file", key)
    return TestClient(create_app(ServiceSettings(token_file=tokens, **settings), nlp=nlp))


@pytest.fixture(scope="module")
def client(files, rule_nlp):
    with make_client(files, rule_nlp) as c:
        yield c


def assert_no_echo(response, *extra):
    for s in SECRETS + extra:
        assert s not in response.text


# -- the answers ---------------------------------------------------------------------------


def test_deidentify_tag_gives_text_and_offsets_in_both_texts(client, rule_nlp):
    r = client.post("/deidentify", json={"text": REPORT}, headers=AUTH)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == "tag" and body["privacy"] == "balanced"
    expected = meddocan_deid.deidentify(rule_nlp(REPORT), mode="tag")
    assert body["text"] == expected.text
    assert [tuple(e.values()) for e in body["entities"]] == [
        tuple(x) for x in expected.replacements
    ]
    labels = {e["label"] for e in body["entities"]}
    assert {"NOMBRE_SUJETO_ASISTENCIA", "ID_SUJETO_ASISTENCIA"} <= labels
    for e in body["entities"]:
        assert body["text"][e["new_start"] : e["new_end"]] == f"[{e['label']}]"
    originals = {REPORT[e["start"] : e["end"]] for e in body["entities"]}
    assert {NAME, SURNAMES, NHC} <= originals
    assert NAME not in body["text"] and NHC not in body["text"]


def test_deidentify_surrogate_uses_the_server_key_and_the_scope(client, rule_nlp):
    req = {"text": REPORT, "mode": "surrogate", "scope": "informe-1"}
    first = client.post("/deidentify", json=req, headers=AUTH).json()
    again = client.post("/deidentify", json=req, headers=AUTH).json()
    expected = meddocan_deid.deidentify(
        rule_nlp(REPORT), mode="surrogate", key=KEY, scope="informe-1"
    )
    assert first["text"] == again["text"] == expected.text
    assert NHC not in first["text"] and SURNAMES not in first["text"]
    by_patient = client.post(
        "/deidentify", json={"text": REPORT, "mode": "surrogate", "patient_id": "p-9"}, headers=AUTH
    ).json()
    assert (
        by_patient["text"]
        == meddocan_deid.deidentify(
            rule_nlp(REPORT), mode="surrogate", key=KEY, patient_id="p-9"
        ).text
    )


def test_deidentify_texts_gives_one_result_each(client):
    other = "Nombre: Baltasar.\nApellidos: Ojeda Riquelme.\nNHC: 5512093.\n"
    r = client.post("/deidentify", json={"texts": [REPORT, other], "mode": "mask"}, headers=AUTH)
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert len(results) == 2
    assert len(results[0]["text"]) == len(REPORT) and len(results[1]["text"]) == len(
        other
    )  # mask keeps length
    assert "Ojeda" not in results[1]["text"] and "Baltasar" not in results[1]["text"]
    assert all(
        res["text"][e["new_start"] : e["new_end"]].strip("* \n") == ""
        for res in results
        for e in res["entities"]
    )


def test_inline_policy_and_known_phi_are_applied(client):
    # a surname the report's own fields do not give: only the known identifiers name it
    text = REPORT + "Refiere que Zurbarán es su apellido materno.\n"
    plain = client.post("/analyze", json={"text": text}, headers=AUTH).json()["entities"]
    body_start = text.index("Refiere")
    assert not any(e["start"] >= body_start for e in plain)
    r = client.post(
        "/deidentify",
        headers=AUTH,
        json={
            "text": text,
            "known_phi": {"NOMBRE_SUJETO_ASISTENCIA": ["Eulalia Zurbarán"]},
            "policy": {
                "labels": {"EDAD_SUJETO_ASISTENCIA": False},
                "operators": {"SEXO_SUJETO_ASISTENCIA": "keep"},
            },
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    labels = [e["label"] for e in body["entities"]]
    assert "EDAD_SUJETO_ASISTENCIA" not in labels and "38 años" in body["text"]
    sex = next(e for e in body["entities"] if e["label"] == "SEXO_SUJETO_ASISTENCIA")
    assert body["text"][sex["new_start"] : sex["new_end"]] == "M"
    assert any(
        e["start"] >= body_start and text[e["start"] : e["end"]] == "Zurbarán"
        for e in body["entities"]
    )
    assert "Zurbarán" not in body["text"]


def test_policy_field_keys_are_refused_per_request(client):
    """A request names no folder on the server: field keys come with the served pipeline."""
    r = client.post(
        "/analyze", headers=AUTH, json={"text": REPORT, "policy": {"field_keys": "/tmp"}}
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "policy", "field_keys"]
    assert "add-patterns" in r.json()["detail"][0]["msg"]


def test_privacy_high_per_request_leaves_the_server_default(client, rule_nlp):
    text = REPORT + "Refiere dolor tras una excursión con Zurbatxegi por el monte.\n"
    balanced = client.post("/analyze", json={"text": text}, headers=AUTH).json()
    high = client.post("/analyze", json={"text": text, "privacy": "high"}, headers=AUTH).json()
    assert balanced["privacy"] == "balanced" and high["privacy"] == "high"
    start = text.index("Zurbatxegi")
    assert not any(e["start"] <= start < e["end"] for e in balanced["entities"])
    assert any(e["start"] <= start < e["end"] for e in high["entities"])
    assert rule_nlp.get_pipe("privacy").level == "balanced"
    assert client.post("/analyze", json={"text": text}, headers=AUTH).json() == balanced
    by_policy = client.post(
        "/analyze", json={"text": text, "policy": {"privacy": "high"}}, headers=AUTH
    ).json()
    assert by_policy == high  # the policy's level, as in a policy file
    overridden = client.post(
        "/analyze",
        json={"text": text, "policy": {"privacy": "high"}, "privacy": "balanced"},
        headers=AUTH,
    ).json()
    assert overridden == balanced  # the request's own field wins, as --privacy over the policy's


def test_analyze_native_and_presidio_shapes(client, rule_nlp):
    spans = doc_spans(rule_nlp(REPORT))
    native = client.post("/analyze", json={"text": REPORT}, headers=AUTH)
    assert native.status_code == 200
    assert [(e["label"], e["start"], e["end"]) for e in native.json()["entities"]] == spans
    # Presidio analyzer's own request body gives its own answer: a list
    presidio = client.post("/analyze", json={"text": REPORT, "language": "es"}, headers=AUTH).json()
    assert isinstance(presidio, list)
    # Presidio's entity names by default (docs/presidio.md), MEDDOCAN labels on request
    assert [(p["entity_type"], p["start"], p["end"]) for p in presidio] == [
        (presidio_entity(lab, REPORT[s:e]), s, e) for lab, s, e in spans
    ]
    assert {"PERSON", "ID", "AGE"} <= {p["entity_type"] for p in presidio}
    assert all(
        set(p) == {"entity_type", "start", "end", "score"} and 0 < p["score"] <= 1 for p in presidio
    )
    labelled = client.post(
        "/analyze",
        json={"text": REPORT, "language": "es", "entity_names": "meddocan"},
        headers=AUTH,
    ).json()
    assert [(p["entity_type"], p["start"], p["end"]) for p in labelled] == spans
    assert (
        client.post("/analyze?format=presidio", json={"text": REPORT}, headers=AUTH).json()
        == presidio
    )
    assert (
        client.post("/analyze", json={"text": REPORT, "format": "presidio"}, headers=AUTH).json()
        == presidio
    )
    only_ids = client.post(
        "/analyze",
        json={"text": REPORT, "language": "es", "entities": ["ID_SUJETO_ASISTENCIA"]},
        headers=AUTH,
    ).json()
    assert [p["entity_type"] for p in only_ids] == ["ID_SUJETO_ASISTENCIA"]
    assert (
        client.post(
            "/analyze",
            json={"text": REPORT, "language": "es", "score_threshold": 0.99},
            headers=AUTH,
        ).json()
        == []
    )
    wrong = client.post("/analyze", json={"text": REPORT, "language": "en"}, headers=AUTH)
    assert wrong.status_code == 422 and wrong.json()["detail"][0]["loc"] == ["body", "language"]


def test_health_ready_docs_and_page(client):
    assert client.get("/health").json()["status"] == "ok"
    assert client.get("/ready").status_code == 200
    spec = client.get("/openapi.json").json()
    assert {"/deidentify", "/analyze", "/health", "/ready", "/metrics"} <= set(spec["paths"])
    assert client.get("/docs").status_code == 200
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    nonce = csp.split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in page.text and f'<style nonce="{nonce}">' in page.text
    assert "<textarea" in page.text and "deidentify" in page.text
    assert "src=" not in page.text and "http" not in page.text.lower().replace("http-equiv", "")
    assert client.get("/").headers["content-security-policy"] != csp  # a fresh nonce per page


# -- security ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "method,path",
    [("post", "/deidentify"), ("post", "/analyze"), ("get", "/metrics"), ("get", "/nowhere")],
)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-0123456789"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
    ],
)
def test_every_data_route_needs_a_valid_token(client, method, path, headers):
    r = getattr(client, method)(
        path, headers=headers, **({"json": {"text": REPORT}} if method == "post" else {})
    )
    assert r.status_code == 401
    assert r.headers["www-authenticate"] == "Bearer"
    assert r.json()["error"] == "unauthorized"
    assert_no_echo(r)


def test_any_token_of_the_file_is_accepted(client):
    r = client.post(
        "/analyze", json={"text": REPORT}, headers={"Authorization": f"Bearer {OTHER_TOKEN}"}
    )
    assert r.status_code == 200


def test_health_and_ready_need_no_token(client):
    assert client.get("/health").status_code == 200 and client.get("/ready").status_code == 200


def test_the_key_cannot_be_sent_and_surrogates_need_a_server_key(client, files, rule_nlp):
    r = client.post(
        "/deidentify", json={"text": REPORT, "mode": "surrogate", "key": "x" * 32}, headers=AUTH
    )
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "key"]
    assert "x" * 32 not in r.text
    tokens, _key = files
    with TestClient(create_app(ServiceSettings(token_file=tokens), nlp=rule_nlp)) as keyless:
        r = keyless.post("/deidentify", json={"text": REPORT, "mode": "surrogate"}, headers=AUTH)
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "mode"]
        assert keyless.post("/deidentify", json={"text": REPORT}, headers=AUTH).status_code == 200


def test_body_over_the_limit_is_413(client):
    big = json.dumps({"text": "Nombre: Eulalia. " * 300_000}).encode()  # about 5 MB
    assert len(big) > 5_000_000
    r = client.post(
        "/deidentify", content=big, headers={**AUTH, "content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert_no_echo(r)

    def chunks():  # no Content-Length: counted while it is read
        for _ in range(6):
            yield b" " * 1_000_000

    r = client.post(
        "/deidentify", content=chunks(), headers={**AUTH, "content-type": "application/json"}
    )
    assert r.status_code == 413


@pytest.mark.parametrize(
    "content,status,loc",
    [
        (b'{"text": "Nombre: Eulalia Marc\xf3 Bentabol"}', 400, None),  # latin-1 byte: not UTF-8
        (b'{"text": "Nombre: Eulalia Marc\xc3\xb3 Bentabol"', 422, None),  # unterminated JSON
        (b'{"text": 7734519}', 422, ["body", "text"]),
        (b'{"texts": "Eulalia Marc\xc3\xb3 Bentabol"}', 422, ["body", "texts"]),
        (b'{"text": "   \\n "}', 422, ["body", "text"]),
        (b'{"texts": ["Nombre: Eulalia.", ""]}', 422, ["body", "texts"]),
        (b'{"text": "Nombre: Eulalia \\ud800 Bentabol"}', 422, ["body", "text"]),
        (b'{"text": "Nombre: Eulalia.", "texts": ["NHC: 7734519"]}', 422, ["body"]),
        (b'{"text": "Nombre: Eulalia.", "mode": "Bentabol"}', 422, ["body", "mode"]),
        (
            b'{"text": "Nombre: Eulalia.", "policy": '
            b'{"deny": [{"label": "Bentabol", "strings": ["Eulalia"]}]}}',
            422,
            ["body", "policy"],
        ),
        (
            b'{"text": "Nombre: Eulalia.", "known_phi": {"Bentabol": ["7734519"]}}',
            422,
            ["body", "known_phi"],
        ),
        (b'["Eulalia Marc\xc3\xb3 Bentabol", "7734519"]', 422, ["body"]),
        (b"", 422, ["body"]),
    ],
)
def test_bad_requests_are_4xx_and_never_echo_the_input(client, content, status, loc):
    r = client.post(
        "/deidentify", content=content, headers={**AUTH, "content-type": "application/json"}
    )
    assert r.status_code == status, r.text
    assert_no_echo(r, "Marc")
    body = r.json()
    assert "input" not in r.text
    if loc is not None:
        assert body["error"] == "invalid_request"
        assert any(d["loc"][: len(loc)] == loc for d in body["detail"]), body


def test_text_plain_body_is_422_without_echo(client):
    r = client.post(
        "/deidentify", content=REPORT.encode(), headers={**AUTH, "content-type": "text/plain"}
    )
    assert r.status_code == 422
    assert_no_echo(r)


def test_overload_gives_429_and_the_held_request_completes(files, rule_nlp):
    held = HeldPipeline(rule_nlp)
    with make_client(files, held, max_concurrent=1, max_queue=0) as c:  # no queue: refused at once
        answers = {}
        first = threading.Thread(
            target=lambda: answers.setdefault(
                "first", c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
            )
        )
        first.start()
        try:
            assert held.entered.wait(30)
            busy = c.post("/analyze", json={"text": REPORT}, headers=AUTH)
            assert busy.status_code == 429 and busy.json()["error"] == "busy"
            assert int(busy.headers["Retry-After"]) >= 1
            assert_no_echo(busy)
        finally:
            held.release.set()
            first.join(30)
        assert answers["first"].status_code == 200
        assert NHC not in answers["first"].json()["text"]
        assert (
            c.post("/analyze", json={"text": REPORT}, headers=AUTH).status_code == 200
        )  # the slot is free


def test_timeout_gives_504_and_frees_the_slot_when_the_work_ends(files, rule_nlp):
    held = HeldPipeline(rule_nlp)
    with make_client(files, held, max_concurrent=1, max_queue=0, request_timeout=0.2) as c:
        r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        assert r.status_code == 504 and r.json()["error"] == "timeout"
        assert_no_echo(r)
        assert (
            c.post("/analyze", json={"text": REPORT}, headers=AUTH).status_code == 429
        )  # still working
        held.release.set()
        for _ in range(100):  # the worker thread ends promptly once released
            r = c.post("/analyze", json={"text": REPORT}, headers=AUTH)
            if r.status_code != 429:
                break
            time.sleep(0.05)
        assert r.status_code == 200


def test_a_pipeline_error_is_500_naming_only_its_type(files, rule_nlp):
    class Broken(HeldPipeline):
        def pipe(self, texts):
            raise RuntimeError(f"could not process {texts[0]}")  # a message that quotes the text

    with make_client(files, Broken(rule_nlp)) as c:
        r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        assert r.status_code == 500 and "RuntimeError" in r.json()["detail"]
        assert_no_echo(r)


def test_ready_is_503_until_a_model_is_loaded(files, tmp_path, caplog):
    with (
        caplog.at_level("ERROR"),
        make_client(files, None, model=str(tmp_path / "no-such-model")) as c,
    ):
        for _ in range(200):  # the load runs in a thread at startup and fails at once
            if c.get("/ready").json()["status"] != "loading":
                break
            time.sleep(0.05)
        r = c.get("/ready")
        assert r.status_code == 503 and r.json()["status"] == "failed"
        assert c.get("/health").status_code == 200
        r = c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        assert r.status_code == 503 and r.json()["error"] == "not_ready"
    # the CLI's loader and its message: one line naming the model
    assert any("cannot load the model" in m and "no-such-model" in m for m in caplog.messages)


def test_bad_token_and_key_files_stop_the_start(tmp_path, rule_nlp):
    short = tmp_path / "short.txt"
    short.write_text("tooshort\n")
    with pytest.raises(ServiceSettingsError, match=r"short\.txt:1: a token must be at least 16"):
        create_app(ServiceSettings(token_file=short), nlp=rule_nlp)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    with pytest.raises(ServiceSettingsError, match="no token"):
        create_app(ServiceSettings(token_file=empty), nlp=rule_nlp)
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(TOKEN + "\n")
    key = tmp_path / "k.key"
    key.write_text("short\n")
    with pytest.raises(ServiceSettingsError, match=r"k\.key: the key is too short") as err:
        create_app(ServiceSettings(token_file=tokens, key_file=key), nlp=rule_nlp)
    assert TOKEN not in str(err.value)


def test_the_vocab_does_not_grow_with_the_words_served(files):
    from conftest import build_rule_nlp

    nlp = build_rule_nlp()  # its own: other tests' pipelines keep what they were given
    with make_client(files, nlp) as c:
        assert c.post("/deidentify", json={"text": REPORT}, headers=AUTH).status_code == 200
        before = len(nlp.vocab.strings)
        for i in range(3):  # words no request has sent before
            text = f"Nombre: Zorbalina{i}.\nPaciente con xylofiria{i} y quetzalmia{i}.\n"
            assert c.post("/deidentify", json={"text": text}, headers=AUTH).status_code == 200
            assert c.post("/analyze", json={"text": text + "Bis."}, headers=AUTH).status_code == 200
        assert len(nlp.vocab.strings) == before
    list(nlp.pipe(["Paciente con xylofiria9."]))  # the same words outside the service stay
    assert len(nlp.vocab.strings) > before


# -- what the server writes ----------------------------------------------------------------


def test_metrics_count_requests_and_entities_and_hold_no_text(files, rule_nlp):
    with make_client(files, rule_nlp) as c:
        c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        c.post("/deidentify", json={"text": REPORT}, headers=AUTH)
        c.post("/analyze", json={"text": REPORT, "language": "es"}, headers=AUTH)
        c.post("/deidentify", json={"text": 5}, headers=AUTH)
        c.post("/deidentify", json={"text": REPORT})
        assert c.get("/metrics").status_code == 401
        r = c.get("/metrics", headers=AUTH)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    m = r.text
    assert 'meddocan_deid_requests_total{method="POST",route="/deidentify",status="200"} 2.0' in m
    assert 'meddocan_deid_requests_total{method="POST",route="/deidentify",status="422"} 1.0' in m
    assert 'meddocan_deid_requests_total{method="POST",route="/deidentify",status="401"} 1.0' in m
    assert 'meddocan_deid_requests_total{method="POST",route="/analyze",status="200"} 1.0' in m
    assert 'meddocan_deid_request_seconds_count{route="/deidentify"} 4.0' in m
    n_ids = sum(
        1 for label, _s, _e in doc_spans(rule_nlp(REPORT)) if label == "ID_SUJETO_ASISTENCIA"
    )
    assert f'meddocan_deid_entities_total{{label="ID_SUJETO_ASISTENCIA"}} {3.0 * n_ids}' in m
    assert 'meddocan_deid_texts_total{route="/deidentify"} 2.0' in m
    for s in SECRETS:
        assert s not in m


def test_logs_hold_no_phi(files, rule_nlp, caplog):
    caplog.set_level(logging.DEBUG)
    with make_client(files, rule_nlp) as c:
        assert (
            c.post(
                "/deidentify", json={"text": REPORT, "mode": "surrogate"}, headers=AUTH
            ).status_code
            == 200
        )
        assert (
            c.post(
                "/analyze",
                json={"text": REPORT, "known_phi": {"NOMBRE_SUJETO_ASISTENCIA": [NAME]}},
                headers=AUTH,
            ).status_code
            == 200
        )
        assert (
            c.post("/deidentify", json={"text": REPORT, "mode": NAME}, headers=AUTH).status_code
            == 422
        )
        assert (
            c.post(
                "/deidentify",
                content=b'{"text": "' + SURNAMES.encode("latin-1") + b'"}',
                headers={**AUTH, "content-type": "application/json"},
            ).status_code
            == 400
        )
    service_lines = [r for r in caplog.records if r.name.startswith("meddocan_deid.service")]
    assert len(service_lines) >= 4  # one line per request at least
    everything = caplog.text + " ".join(str(r.args) for r in caplog.records)
    for s in SECRETS:
        assert s not in everything
