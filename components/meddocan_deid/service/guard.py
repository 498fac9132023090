"""`Guard`: the pure ASGI middleware around the app: bearer auth, the body size limit (the
body is read here, up to the limit, before the app sees it), request metrics and a last
catch that turns an unexpected exception into a 500 naming only its type."""

import hashlib
import logging
import time
from collections.abc import Callable

from ..audit import AuditError
from ..audit import service as request_audit
from .problems import json_error

logger = logging.getLogger("meddocan_deid.service")

# the routes that hold no data and need no token (routes/docs.py, routes/page.py, routes/status.py)
PUBLIC = frozenset(
    {"/health", "/ready", "/", "/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"}
)
# Swagger UI's and ReDoc's files, from the fastapi-offline package (no CDN): public as the docs
DOCS_ASSETS = "/docs/assets"
# the routes that need `Authorization: Bearer <token>`
PROTECTED = frozenset(
    {
        "/deidentify",
        "/deidentify/table",
        "/deidentify/fhir",
        "/deidentify/hl7v2",
        "/deidentify/scan",
        "/analyze",
        "/metrics",
    }
)
ROUTES = PROTECTED | PUBLIC | {DOCS_ASSETS}
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def route_label(path: str) -> str:
    """The metric label of a path: a known route, the docs' assets, or "other"."""
    if path in ROUTES:
        return path
    return DOCS_ASSETS if path.startswith(DOCS_ASSETS + "/") else "other"


class Guard:
    def __init__(
        self,
        app,
        *,
        tokens,
        max_body_bytes: int,
        metrics,
        audit=None,
        server=None,
        route_limits=None,
    ):
        self.app = app
        self.tokens = tokens
        self.max_body = max_body_bytes
        # path -> its own body limit (an uploaded scan is larger than a report's text)
        self.route_limits: dict[str, int] = dict(route_limits or {})
        self.metrics = metrics
        self.audit = audit  # an AuditLog: one line per request (None: no audit trail)
        # the server's model and key fingerprint, for each line
        self.server: Callable[[], dict] = server or dict

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        route = route_label(path)
        method = scope.get("method", "")
        method = (
            method if method in METHODS else "OTHER"
        )  # metric labels stay few, whatever clients send
        status = {"code": 500}
        start = time.perf_counter()
        answer, asked = hashlib.sha256(), {"sha256": None}
        scope[request_audit.SCOPE_KEY] = {}

        async def send_wrapper(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            elif message["type"] == "http.response.body":
                answer.update(message.get("body", b""))
            await send(message)

        try:
            response = self._refuse(scope, path)
            if response is None and method in ("POST", "PUT", "PATCH"):
                limit = self.route_limits.get(path, self.max_body)
                body, too_big = await self._read_body(scope, receive, limit)
                if too_big:
                    response = json_error(
                        413, "too_large", f"the body is over the limit of {limit} bytes"
                    )
                else:
                    asked["sha256"] = hashlib.sha256(body).hexdigest()
                    receive = _replay(body, receive)
            if response is not None:
                await response(scope, receive, send_wrapper)
            else:
                await self.app(scope, receive, send_wrapper)
        except Exception as err:  # noqa: BLE001 - never a traceback that could quote a request
            logger.error("%s %s: internal error (%s)", method, route, type(err).__name__)
            status["code"] = 500
            try:
                await json_error(500, "internal", f"internal error ({type(err).__name__})")(
                    scope, receive, send_wrapper
                )
            except Exception:  # noqa: BLE001 - the response had already started
                pass
        finally:
            elapsed = time.perf_counter() - start
            self.metrics.requests.labels(route, method, str(status["code"])).inc()
            self.metrics.latency.labels(route).observe(elapsed)
            logger.info("%s %s %d %.1f ms", method, route, status["code"], elapsed * 1000)
            if self.audit is not None:
                self._audit(scope, route, method, status["code"], elapsed, asked, answer)

    def _audit(self, scope, route, method, code, elapsed, asked, answer) -> None:
        """The request's audit line (a log that cannot be written is logged, never raised: the
        answer is already sent)."""
        token = self._token(scope)
        entry = request_audit.request_entry(
            route=route,
            method=method,
            status=code,
            user=request_audit.token_id(token) if token is not None else None,
            seconds=elapsed,
            input_sha256=asked["sha256"],
            output_sha256=answer.hexdigest(),
            server=self.server(),
            notes=scope.get(request_audit.SCOPE_KEY, {}),
        )
        try:
            self.audit.append(entry)
        except AuditError as err:
            logger.error("%s", err)

    def _token(self, scope) -> str | None:
        """The request's bearer token when it is one of the server's, else None."""
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                auth = value.decode("latin-1")
                if auth.startswith("Bearer ") and self.tokens.check(auth[7:].strip()):
                    return auth[7:].strip()
                return None
        return None

    def _refuse(self, scope, path: str):
        if path in PUBLIC or route_label(path) == DOCS_ASSETS:
            return None
        auth = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                auth = value.decode("latin-1")
                break
        if (
            auth is None
            or not auth.startswith("Bearer ")
            or not self.tokens.check(auth[len("Bearer ") :].strip())
        ):
            return json_error(
                401,
                "unauthorized",
                "a valid 'Authorization: Bearer <token>' header is needed",
                headers={"WWW-Authenticate": "Bearer"},
            )
        return None

    async def _read_body(self, scope, receive, limit: int):
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    if int(value) > limit:
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
            if size > limit:
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
