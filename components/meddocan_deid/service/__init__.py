"""The HTTP service: `create_app(ServiceSettings(...))` (FastAPI), run by `meddocan-deid serve`.

Needs the `service` extra: `pip install meddocan-deid[service]`."""

from .app import create_app
from .settings import ServiceSettings, ServiceSettingsError

__all__ = ["ServiceSettings", "ServiceSettingsError", "create_app"]
