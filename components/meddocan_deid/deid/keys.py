"""Keys and keyed randomness for surrogates.

Every surrogate is a function of HMAC-SHA256(key, scope, kind, value): the same key gives
byte-identical output whatever the order, the batch size or the number of processes;
another key gives unrelated output. No mapping originals -> surrogates is ever stored.

Keys never come from the command line. `load_key` reads a key file or the environment
variable `MEDDOCAN_DEID_KEY`; `random_key` makes a fresh key that is kept in memory only.
Nothing here logs or prints a key.
"""

import hashlib
import hmac
import os
import random
import secrets
from pathlib import Path

from ..errors import DeidKeyError

ENV_KEY = "MEDDOCAN_DEID_KEY"
MIN_KEY_BYTES = 16

KeyLike = bytes | bytearray | str


def as_key(key: KeyLike) -> bytes:
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray)):
        raise DeidKeyError("the key must be bytes or str")
    key = bytes(key)
    if len(key) < MIN_KEY_BYTES:
        raise DeidKeyError(
            f"the key is too short ({len(key)} bytes, at least {MIN_KEY_BYTES} needed)"
        )
    return key


def load_key(key_file: Path | None = None, environ=None) -> bytes | None:
    """The key from `key_file` (bytes, a trailing newline removed), else from the
    environment variable MEDDOCAN_DEID_KEY, else None."""
    environ = os.environ if environ is None else environ
    if key_file is not None:
        path = Path(key_file)
        try:
            raw = path.read_bytes()
        except OSError as err:
            raise DeidKeyError(
                f"{path}: cannot read the key file ({err.strerror or type(err).__name__})"
            ) from None
        raw = raw.rstrip(b"\r\n")
        try:
            return as_key(raw)
        except DeidKeyError as err:
            raise DeidKeyError(f"{path}: {err}") from None
    value = environ.get(ENV_KEY)
    if value:
        try:
            return as_key(value)
        except DeidKeyError as err:
            raise DeidKeyError(f"{ENV_KEY}: {err}") from None
    return None


def random_key() -> bytes:
    """A fresh 32-byte key, never written anywhere."""
    return secrets.token_bytes(32)


class Keyed:
    """Keyed randomness for one scope (a report id or a patient id)."""

    __slots__ = ("_key", "scope")

    def __init__(self, key: KeyLike, scope: str):
        self._key = as_key(key)
        self.scope = str(scope)

    def __repr__(self) -> str:  # never show the key
        return "Keyed(<key>, <scope>)"

    def digest(self, kind: str, value: str = "", attempt: int = 0) -> bytes:
        msg = "\x1f".join((self.scope, kind, value, str(attempt))).encode("utf-8")
        return hmac.new(self._key, msg, hashlib.sha256).digest()

    def integer(self, kind: str, value: str = "", attempt: int = 0) -> int:
        return int.from_bytes(self.digest(kind, value, attempt), "big")

    def rng(self, kind: str, value: str = "", attempt: int = 0) -> random.Random:
        return random.Random(self.integer(kind, value, attempt))
