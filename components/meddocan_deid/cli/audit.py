"""`meddocan-deid audit verify RUN_DIR_OR_LOG`: check an audit log's hash chain and name every
line where it breaks (meddocan_deid.audit)."""

from pathlib import Path

import typer

from ..audit import AuditError, verify_target

AUDIT_EPILOG = """\b
Examples:
  meddocan-deid audit verify out/
  meddocan-deid audit verify /var/log/meddocan-deid/audit_log.jsonl
"""

audit_app = typer.Typer(
    add_completion=False,
    rich_markup_mode=None,
    help="The audit trail: one hash-chained line per run and per service request.",
)


@audit_app.command("verify", epilog=AUDIT_EPILOG)
def verify_command(
    target: Path = typer.Argument(
        ...,
        metavar="RUN_DIR_OR_LOG",
        help="A run's output folder (its audit_log.jsonl and the line its run report records) "
        "or an audit log.",
    ),
):
    """Check the chain of an audit log: every line follows the one above it (seq) and holds
    its SHA-256 (prev). Prints each edited, removed or reordered line by its number; exit
    status 0 when the chain is whole, 1 when it is broken, 2 when it cannot be read."""
    try:
        result = verify_target(target)
    except AuditError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    for problem in result.problems:
        typer.echo(f"meddocan-deid: {result.log}: {problem}", err=True)
    state = "whole" if result.ok else f"broken ({len(result.problems)} problems)"
    typer.echo(f"{result.log}: {result.lines} lines, chain {state}, last line sha256 {result.head}")
    raise typer.Exit(0 if result.ok else 1)
