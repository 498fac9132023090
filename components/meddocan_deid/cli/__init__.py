"""Command line: `meddocan-deid` (one typer app, cli/app.py). `run` is the `deidentify`
command as a function (the engine's, meddocan_deid.engine); `CliError` (the engine's
RunError) is what stops a run before it starts."""
from ..engine import run
from ..errors import CliError
from .app import app, main

__all__ = ["CliError", "app", "main", "run"]
