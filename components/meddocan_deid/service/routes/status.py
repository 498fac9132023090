"""GET /health and /ready (no token: they hold no data) and GET /metrics (token needed)."""

from fastapi import APIRouter, Depends, Security
from fastapi.responses import JSONResponse, PlainTextResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from ... import __version__
from .common import State, bearer, state

router = APIRouter()
protected = APIRouter(dependencies=[Security(bearer)])


@router.get("/health")
async def health():
    """The process answers (the pipeline may still be loading: see /ready)."""
    return {"status": "ok", "version": __version__}


@router.get("/ready")
async def ready(s: State = Depends(state)):
    """200 when a request would be taken now; 503 while loading, after a failed load, and
    while `max_concurrent` requests are in flight ("busy": a request would wait in the
    queue). Counts requests in flight, queued, waiting for a slot and in the long lane."""
    engine = s.engine
    counts = {
        "in_flight": engine.in_flight,
        "queued": engine.queued,
        "waiting": engine.waiting,
        "long_running": engine.long_running,
    }
    if engine.state != "ready":
        return JSONResponse({"status": engine.state, **counts}, status_code=503)
    if engine.in_flight >= s.settings.max_concurrent:
        return JSONResponse({"status": "busy", **counts}, status_code=503)
    return {"status": "ready", **counts}


@protected.get("/metrics", response_class=PlainTextResponse)
async def get_metrics(s: State = Depends(state)):
    """Prometheus text format: requests by route and status, latency, texts, entities per label."""
    return PlainTextResponse(generate_latest(s.metrics.registry), media_type=CONTENT_TYPE_LATEST)
