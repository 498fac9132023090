"""Command line: `meddocan-deid` (one typer app, cli/app.py)."""
from .app import app, main

__all__ = ["app", "main"]
