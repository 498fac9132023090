"""`meddocan-deid serve`: the HTTP service (meddocan_deid.service) under uvicorn."""

import logging
import os
from dataclasses import dataclass
from pathlib import Path

import typer

from ..constants import DEFAULT_MODEL
from .options import option_field, takes_options

SERVE_EPILOG = """\b
Example:
  meddocan-deid keygen deid.key
  python -c "import secrets; print(secrets.token_urlsafe(32))" > tokens.txt
  meddocan-deid serve --token-file tokens.txt --key-file deid.key --port 8000
"""
LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True, kw_only=True)
class ServeOptions:
    """The options of `serve`: where it listens, the settings of the service (ServiceSettings)."""

    host: str = option_field(
        "127.0.0.1", "--host", help="Address to listen on (default loopback only)."
    )
    port: int = option_field(8000, "--port", min=0, max=65535, help="Port.")
    workers: int = option_field(
        1, "--workers", min=1, help="uvicorn worker processes (each loads its own pipeline)."
    )
    token_file: Path = option_field(
        ..., "--token-file", help="Bearer tokens, one a line (16+ characters each)."
    )
    key_file: Path | None = option_field(
        None,
        "--key-file",
        help="Surrogate key file (else env MEDDOCAN_DEID_KEY; none: no surrogate mode).",
    )
    model: str = option_field(DEFAULT_MODEL, "--model", help="Installed pipeline name or path.")
    mode: str = option_field("tag", "--mode", help="Default mode: tag, mask, redact or surrogate.")
    privacy: str = option_field(
        "balanced", "--privacy", help="Default privacy level: balanced or high."
    )
    max_body_bytes: int = option_field(
        500_000,
        "--max-body-bytes",
        min=1,
        help="Larger bodies get 413 (what one worker finishes within --timeout).",
    )
    max_scan_bytes: int = option_field(
        10_000_000,
        "--max-scan-bytes",
        min=1,
        help="Larger uploads to POST /deidentify/scan get 413.",
    )
    max_scan_pages: int = option_field(
        10,
        "--max-scan-pages",
        min=1,
        help="Scans of more pages get 413 before any OCR (about 1 to 3 s of OCR a page).",
    )
    timeout: float = option_field(
        30.0, "--timeout", min=0.001, help="Seconds per request before a 504."
    )
    max_concurrent: int = option_field(
        4,
        "--max-concurrent",
        min=1,
        help="Requests processed at once per worker; more wait in the queue.",
    )
    max_queue: int = option_field(
        16,
        "--max-queue",
        min=0,
        help="Requests that may wait for a slot per worker, first come first served; more get "
        "429 with Retry-After.",
    )
    queue_wait: float = option_field(
        5.0,
        "--queue-wait",
        min=0,
        help="Seconds a request waits for a slot before a 429 with Retry-After.",
    )
    code: Path | None = option_field(
        None, "--code", help="Python file to import first (custom spaCy components)."
    )
    audit_log: Path | None = option_field(
        None,
        "--audit-log",
        help="Append one hash-chained line per request here (who, route, digests, counts; "
        "never text or tokens); check it with `meddocan-deid audit verify`.",
    )
    log_level: str = option_field(
        "info",
        "--log-level",
        help="uvicorn log level (logs hold routes, statuses and counts, never text).",
    )

    def settings(self) -> dict:
        """The service's settings as ServiceSettings validates them."""
        return {
            "model": self.model,
            "token_file": self.token_file,
            "key_file": self.key_file,
            "mode": self.mode,
            "privacy": self.privacy,
            "max_body_bytes": self.max_body_bytes,
            "max_scan_bytes": self.max_scan_bytes,
            "max_scan_pages": self.max_scan_pages,
            "request_timeout": self.timeout,
            "max_concurrent": self.max_concurrent,
            "max_queue": self.max_queue,
            "queue_wait": self.queue_wait,
            "code": self.code,
            "audit_log": self.audit_log,
            "log_level": self.log_level.lower(),
        }


@takes_options(options=ServeOptions)
def serve(*, options: ServeOptions):
    """Serve POST /deidentify and /analyze (also Presidio's), /health, /ready, /metrics, /
    and /docs.

    Every route but /health, /ready, the page and the docs needs `Authorization: Bearer TOKEN`.
    On SIGTERM the server stops accepting connections and finishes the requests in flight.
    """
    _require_service_extra()
    import uvicorn

    from ..service.settings import ENV_SETTINGS

    settings = _checked_settings(options)
    if options.host not in LOOPBACK:
        typer.echo(
            f"meddocan-deid: warning: listening on {options.host}; put TLS in front of it (a "
            "reverse proxy)",
            err=True,
        )
    logging.basicConfig(
        level=logging.DEBUG
        if settings.log_level == "trace"
        else getattr(logging, settings.log_level.upper()),
        format="%(levelname)s %(name)s: %(message)s",
    )
    os.environ[ENV_SETTINGS] = settings.model_dump_json()
    uvicorn.run(
        "meddocan_deid.service.app:app_from_env",
        factory=True,
        host=options.host,
        port=options.port,
        workers=options.workers,
        log_level=options.log_level,
        timeout_graceful_shutdown=int(options.timeout) + 5,
        server_header=False,
        # the service logs each request (route, status, time); uvicorn's access log would
        # also write the raw path and query string
        access_log=False,
    )


def _require_service_extra() -> None:
    """Exit 2 naming the extra to install when the service's modules cannot be imported."""
    try:
        import uvicorn  # noqa: F401

        from ..service import settings  # noqa: F401
    except ImportError as err:
        typer.echo(
            "meddocan-deid: serve needs the service extra: pip install "
            f"'meddocan-deid[service]' ({err.name})",
            err=True,
        )
        raise typer.Exit(2) from None


def _checked_settings(options: ServeOptions):
    """The service's settings of the options, checked before any worker starts; exit 2 with
    each problem (a bad value, token or key file) on one line."""
    from pydantic import ValidationError

    from ..service.settings import ServiceSettings, ServiceSettingsError, check_settings

    try:
        settings = ServiceSettings.model_validate(options.settings())
        check_settings(settings)  # a bad token or key file stops here, before any worker starts
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        typer.echo(f"meddocan-deid: {problems}", err=True)
        raise typer.Exit(2) from None
    except ServiceSettingsError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    return settings
