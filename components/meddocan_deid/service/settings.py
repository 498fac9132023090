"""`ServiceSettings`: what a server is started with (the `serve` command's options).

The secrets stay on the server: the bearer tokens come from `token_file` (one a line,
blank lines and `#` comments ignored) and the surrogate key from `key_file` (else the
environment variable MEDDOCAN_DEID_KEY, as in the CLI); no request can send a key.
"""

import hmac
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..audit import AuditError, AuditLog
from ..constants import DEFAULT_MODEL
from ..deid.keys import DeidKeyError, load_key
from ..errors import ServiceSettingsError  # noqa: F401  (re-exported)
from .schemas import Mode

ENV_SETTINGS = (
    "MEDDOCAN_DEID_SERVICE_SETTINGS"  # how `serve` hands the settings to uvicorn's workers
)
MIN_TOKEN_CHARS = 16


class ServiceSettings(BaseModel):
    """Settings of one server process (each uvicorn worker loads its own pipeline)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(DEFAULT_MODEL, description="Installed pipeline name or path.")
    token_file: Path = Field(
        ..., description="Bearer tokens, one a line (at least 16 characters each)."
    )
    key_file: Path | None = Field(
        None, description="Surrogate key file (else MEDDOCAN_DEID_KEY; none: no surrogates)."
    )
    max_body_bytes: int = Field(
        500_000,
        gt=0,
        description="Larger request bodies get 413 (500 KB: what one worker finishes within the "
        "30 s timeout, README).",
    )
    max_scan_bytes: int = Field(
        10_000_000,
        gt=0,
        description="Larger uploads to POST /deidentify/scan get 413 (a scanned page at 300 dpi "
        "is 0.1 to 1 MB).",
    )
    max_scan_pages: int = Field(
        10,
        ge=1,
        description="Scans of more pages get 413 before any OCR (Tesseract reads a page in "
        "about 1 to 3 s: 10 pages stay within the 30 s timeout).",
    )
    request_timeout: float = Field(30.0, gt=0, description="Seconds before a request gets 504.")
    max_concurrent: int = Field(
        4, ge=1, description="Requests processed at once; more wait in the queue."
    )
    max_queue: int = Field(
        16,
        ge=0,
        description="Requests that may wait for a slot (first come, first served); "
        "more get 429 at once.",
    )
    queue_wait: float = Field(
        5.0,
        ge=0,
        description="Seconds a request waits in the queue for a slot before a 429 "
        "(with Retry-After).",
    )
    privacy: Literal["balanced", "high"] = Field("balanced", description="Default privacy level.")
    mode: Mode = Field("tag", description="Default mode.")
    code: Path | None = Field(
        None, description="Python file imported first (custom spaCy components)."
    )
    audit_log: Path | None = Field(
        None,
        description="The audit log: one hash-chained line per request (none: no audit trail).",
    )
    log_level: Literal["critical", "error", "warning", "info", "debug", "trace"] = Field(
        "info",
        description="Level of the service's own log lines (routes, statuses, counts; never text).",
    )


class Tokens:
    """The accepted bearer tokens; `check` compares in constant time against each."""

    __slots__ = ("_tokens",)

    def __init__(self, tokens: list[bytes]):
        self._tokens = tuple(tokens)

    def __repr__(self) -> str:  # never show a token
        return f"Tokens(<{len(self._tokens)} tokens>)"

    def check(self, given: str) -> bool:
        try:
            raw = given.encode("utf-8")
        except UnicodeEncodeError:
            return False
        ok = False
        for token in self._tokens:  # no early exit: the time does not tell which token matched
            ok |= hmac.compare_digest(raw, token)
        return ok


def load_tokens(path: Path) -> Tokens:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ServiceSettingsError(
            f"{path}: cannot read the token file ({err.strerror or type(err).__name__})"
        ) from None
    except UnicodeDecodeError as err:
        raise ServiceSettingsError(
            f"{path}: the token file is not valid UTF-8 (byte {err.start})"
        ) from None
    tokens = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        token = line.strip()
        if not token or token.startswith("#"):
            continue
        if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
            raise ServiceSettingsError(
                f"{path}:{lineno}: a token must be at least {MIN_TOKEN_CHARS} characters "
                "without spaces"
            )
        tokens.append(token.encode("utf-8"))
    if not tokens:
        raise ServiceSettingsError(f"{path}: no token in the token file (one a line)")
    return Tokens(tokens)


def load_service_key(settings: ServiceSettings) -> bytes | None:
    try:
        return load_key(settings.key_file)
    except DeidKeyError as err:
        raise ServiceSettingsError(str(err)) from None


def import_code(path: Path | None) -> None:
    """Import a Python file (custom spaCy components), as spaCy's `--code`."""
    if path is None:
        return
    from spacy.util import import_file

    path = Path(path)
    if not path.is_file():
        raise ServiceSettingsError(f"{path}: code file not found")
    import_file(path.stem, path)


def settings_from_env(environ=None) -> ServiceSettings:
    environ = os.environ if environ is None else environ
    raw = environ.get(ENV_SETTINGS)
    if not raw:
        raise ServiceSettingsError(
            f"{ENV_SETTINGS} is not set (start the server with `meddocan-deid serve`)"
        )
    return ServiceSettings.model_validate_json(raw)


def check_settings(settings: ServiceSettings) -> tuple[Tokens, bytes | None]:
    """The tokens and the key, or ServiceSettingsError: what `serve` checks before it starts."""
    tokens = load_tokens(settings.token_file)
    key = load_service_key(settings)
    import_code(settings.code)
    if settings.audit_log is not None:
        try:
            AuditLog(settings.audit_log).check()
        except AuditError as err:
            raise ServiceSettingsError(str(err)) from None
    return tokens, key
