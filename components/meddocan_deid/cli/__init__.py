"""Command line: `meddocan-deid` (one typer app, cli/app.py); the run itself is the engine's
(meddocan_deid.engine)."""

from .app import app, main

__all__ = ["app", "main"]
