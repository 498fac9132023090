"""Names the commands used before the engine (meddocan_deid.engine) and the shared options
(cli/options.py) existed, kept for callers: `CliError` is `RunError`."""
from ..constants import DEFAULT_MODEL
from ..engine.settings import resolve_key_and_options
from ..errors import CliError
from .options import Mode

__all__ = ["CliError", "DEFAULT_MODEL", "Mode", "resolve_key_and_options"]
