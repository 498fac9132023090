"""`create_app(settings, nlp=None)`: the FastAPI app of the de-identification service.

Routes (service/routes/, one module a concern): POST /deidentify, /deidentify/table,
/deidentify/fhir, /deidentify/hl7v2, /deidentify/scan (a multipart upload) and /analyze (also
Presidio analyzer's request and answer), GET /metrics (Prometheus): these need
`Authorization: Bearer <token>` with a token of the server's token file (the OpenAPI
schema declares the scheme: /docs has an Authorize button). GET /health, /ready, / (a page
to try it, in English or Spanish), /docs and /redoc (OpenAPI, their files served from
/docs/assets: no CDN) hold no data and need none. Bodies over `max_body_bytes` (a scan's
upload: `max_scan_bytes`) get 413; over
`max_concurrent` requests at once a request waits in a bounded queue (`max_queue`,
`queue_wait` seconds), then gets 429 with Retry-After; a request over `request_timeout` 504.
Errors name the field and the problem, never the request's text (a wrong label name, which is
no PHI, is named: service/problems.py); the logs hold routes, statuses, times and counts only.
"""

import logging
import threading
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from .. import __version__
from ..audit import AuditLog
from ..deid.fingerprint import key_fingerprint, model_identity
from .engine import Engine
from .guard import DOCS_ASSETS, Guard
from .metrics import Metrics
from .problems import add_handlers
from .routes import analyze, deidentify, docs, interchange, page, scan, status
from .routes.common import State
from .settings import ServiceSettings, check_settings, settings_from_env

logger = logging.getLogger("meddocan_deid.service")

DESCRIPTION = (
    "De-identification of Spanish clinical reports (MEDDOCAN PHI labels). The POST routes and "
    "/metrics need a bearer token of the server's token file: press Authorize and paste it."
)


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

    app = FastAPI(
        title="meddocan-deid",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        description=DESCRIPTION,
    )
    app.state.service = State(settings, engine, metrics)
    app.state.engine = engine
    app.state.metrics = metrics
    app.mount(DOCS_ASSETS, StaticFiles(directory=docs.docs_assets()), name="docs-assets")
    for router in (
        docs.router,
        deidentify.router,
        interchange.router,
        scan.router,
        analyze.router,
        status.router,
        status.protected,
        page.router,
    ):
        app.include_router(router)
    add_handlers(app)
    app.add_middleware(
        Guard,
        tokens=tokens,
        max_body_bytes=settings.max_body_bytes,
        route_limits={"/deidentify/scan": settings.max_scan_bytes},
        metrics=metrics,
        audit=AuditLog(settings.audit_log) if settings.audit_log is not None else None,
        server=lambda: {
            "model": model_identity(engine.nlp, settings.model),
            "key_fingerprint": key_fingerprint(key),
            "library_version": __version__,
        },
    )
    return app


def app_from_env():
    """The app of a `meddocan-deid serve` worker: settings from MEDDOCAN_DEID_SERVICE_SETTINGS."""
    settings = settings_from_env()
    if (
        not logging.getLogger().handlers
    ):  # a worker process of --workers N: the level `serve` was given
        level = (
            logging.DEBUG
            if settings.log_level == "trace"
            else getattr(logging, settings.log_level.upper())
        )
        logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    return create_app(settings)
