"""What a service error may say about a request's values, and the error handlers.

An error names the field and the problem, never the request's text. A value the client
wrote may be named when it cannot be PHI: a label-shaped name (upper-case words joined by
underscores, no digit: a wrong label, `NOMBRE_SUJETO`) or a name of the service's own
vocabulary (labels, Presidio names, operators, modes, privacy levels); any other quoted value
becomes `<value>`. A wrong label-shaped name gets the closest label as a suggestion.
"""

import difflib
import logging
import re
from collections.abc import Iterable

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import LABELS, MODES
from ..deid.options import LABEL_MODES
from ..errors import ServiceError
from ..presidio_entities import ENTITY_NAMES

logger = logging.getLogger("meddocan_deid.service")

LABEL_SHAPED = re.compile(r"(?<![A-Z])[A-Z]+(?:_[A-Z]+)+")  # from a run's start: linear
MAX_NAMED_CHARS = 60
VOCABULARY = frozenset([*ENTITY_NAMES, *LABEL_MODES, *MODES, "balanced", "high"])
QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def nameable(value: str) -> bool:
    """Whether an error may repeat `value`: a name of the service's vocabulary or label-shaped."""
    return len(value) <= MAX_NAMED_CHARS and (
        value in VOCABULARY or LABEL_SHAPED.fullmatch(value) is not None
    )


def closest_label(value: str, names: Iterable[str] = LABELS) -> str | None:
    """The label (or name of `names`) closest to a label-shaped `value`, if one is close."""
    names = list(names)
    if value in names:
        return value
    if not LABEL_SHAPED.fullmatch(value or ""):
        return None
    prefixed = [n for n in names if n.startswith(value)]
    if len(prefixed) == 1:  # `NOMBRE_PERSONAL` -> NOMBRE_PERSONAL_SANITARIO
        return prefixed[0]
    found = difflib.get_close_matches(value, names, n=1, cutoff=0.6)
    return found[0] if found else None


def problem(message: str) -> str:
    """The library's message with each quoted value kept when it may be named (and a
    suggestion for a wrong label-shaped one), else replaced with `<value>`."""
    suggestions = []

    def keep_or_hide(match):
        value = match.group(0)[1:-1]
        if not nameable(value):
            return "<value>"
        near = closest_label(value)
        if near is not None and near != value:
            suggestions.append(near)
        return repr(value)

    out = QUOTED.sub(keep_or_hide, message)
    if suggestions:
        out += f" (did you mean {', '.join(dict.fromkeys(suggestions))}?)"
    return out


def json_error(status: int, code: str, message, headers=None) -> JSONResponse:
    return JSONResponse({"error": code, "detail": message}, status_code=status, headers=headers)


def clean_errors(errors) -> list:
    """pydantic's errors without `input`, `ctx` values or URLs: the field and the problem only."""
    out = []
    for e in errors:
        out.append(
            {"loc": list(e.get("loc", ())), "type": e.get("type", ""), "msg": e.get("msg", "")}
        )
    return jsonable_encoder(out)


def add_handlers(app: FastAPI) -> None:
    """The app's error answers: `{"error": code, "detail": ...}`, never the request's text."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return JSONResponse(
            {"error": "invalid_request", "detail": clean_errors(exc.errors())}, status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, "error"
        )
        return json_error(
            exc.status_code, code, str(exc.detail), headers=getattr(exc, "headers", None)
        )

    @app.exception_handler(ServiceError)
    async def _service_error(request: Request, exc: ServiceError):
        if exc.loc is not None:
            return JSONResponse(
                {
                    "error": exc.code,
                    "detail": [{"loc": list(exc.loc), "type": "value_error", "msg": exc.message}],
                },
                status_code=exc.status,
                headers=exc.headers,
            )
        return json_error(exc.status, exc.code, exc.message, headers=exc.headers)
