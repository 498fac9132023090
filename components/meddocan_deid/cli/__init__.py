"""Command line: `meddocan-deid` (one typer app, cli/app.py). `run` is the `deidentify`
command as a function; `CliError` is what stops a run before it starts."""
from ._util import CliError
from .app import app, main
from .deidentify import run

__all__ = ["CliError", "app", "main", "run"]
