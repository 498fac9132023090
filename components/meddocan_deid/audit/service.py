"""A service request's audit line: the route and its answer, who asked (a token's id: a
digest of the token, never the token), the mode, privacy and policy digest of the request, the
model and key fingerprint of the server, the digests of the request and answer bodies, the
counts and the outcome. The Guard middleware writes one line per request (service/guard.py);
a route adds what only it knows with `note`."""

import hashlib
from typing import Any

from ..deid.policy import PolicyError, parse_policy

TOKEN_ID_PREFIX = b"meddocan-deid token id v1\x00"
SCOPE_KEY = "meddocan_deid.audit"  # the request's notes in its ASGI scope


def token_id(token: str) -> str:
    """A token's id in the log: 16 hex digits of a SHA-256 of it (the token is not in the log
    and cannot be read back from its id)."""
    digest = hashlib.sha256(TOKEN_ID_PREFIX + token.encode("utf-8", "replace")).hexdigest()
    return f"token:{digest[:16]}"


def note(request, **fields: Any) -> None:
    """Add fields to the request's audit line (a route: mode, privacy, counts...)."""
    request.scope.setdefault(SCOPE_KEY, {}).update(fields)


def policy_digest(policy) -> str | None:
    """The digest of a request's policy (None without one or when it does not parse: the
    request is refused then)."""
    if policy is None:
        return None
    try:
        return parse_policy(policy, source="policy").digest()
    except PolicyError:
        return None


def request_entry(
    *,
    route: str,
    method: str,
    status: int,
    user: str | None,
    seconds: float,
    input_sha256: str | None,
    output_sha256: str,
    server: dict[str, Any],
    notes: dict[str, Any],
) -> dict[str, Any]:
    """The line of one request (no text, no token, no key)."""
    return {
        "event": "request",
        "route": route,
        "method": method,
        "status": status,
        "user": user,
        "seconds": round(seconds, 4),
        "input_sha256": input_sha256,
        "output_sha256": output_sha256,
        **server,
        **notes,
        "outcome": "ok" if status < 400 else f"error: {status}",
    }
