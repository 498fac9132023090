"""The `meddocan-deid` typer app (also `python -m meddocan_deid`): the root options and the
commands `deidentify` (cli/deidentify.py), `review` (cli/review.py), `keygen` (cli/keygen.py),
`deidentify-spark` (cli/spark.py), `serve` (cli/serve.py), `export` and `import`
(cli/annotations.py), `add-patterns` (cli/patterns.py), `sample`, `certify`, `risk` and `statement`
(cli/evidence.py), `audit verify` (cli/audit.py)."""

import os
import sys

import typer

from .. import __version__
from .annotations import EXPORT_EPILOG, export_command, import_command
from .audit import audit_app
from .deidentify import DEIDENTIFY_EPILOG, deidentify
from .evidence import certify_command, risk_command, sample_command, statement_command
from .keygen import KEYGEN_EPILOG, keygen
from .options import list_options
from .patterns import ADD_PATTERNS_EPILOG, add_patterns_command
from .review import review_command
from .serve import SERVE_EPILOG, serve
from .spark import deidentify_spark

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="De-identify Spanish clinical reports with the MEDDOCAN pipeline.",
)


def _print_version(value: bool):
    if value:
        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
):
    """De-identify Spanish clinical reports with the MEDDOCAN pipeline."""


app.command("deidentify", epilog=DEIDENTIFY_EPILOG)(deidentify)
app.command("options", short_help="List the de-identification options of --option NAME=VALUE.")(
    list_options
)
app.command("review", short_help="Rebuild the review site of an earlier run.")(review_command)
# pyspark is imported only when the command runs: `pip install meddocan-deid[spark]`
app.command("deidentify-spark", short_help="De-identify the rows of INPUT with Apache Spark.")(
    deidentify_spark
)
app.command("keygen", epilog=KEYGEN_EPILOG)(keygen)
# fastapi and uvicorn are imported only when the command runs: `pip install meddocan-deid[service]`
app.command(
    "serve", epilog=SERVE_EPILOG, short_help="Serve de-identification over HTTP (FastAPI)."
)(serve)
app.command(
    "export",
    epilog=EXPORT_EPILOG,
    short_help="Export the pipeline's entities on the original reports for correction (PHI).",
)(export_command)
app.command(
    "import", short_help="Import corrected annotations (BRAT, Label Studio, doccano) as a DocBin."
)(import_command)
app.command(
    "add-patterns",
    epilog=ADD_PATTERNS_EPILOG,
    short_help="Save a pipeline with a hospital's own field keys added.",
)(add_patterns_command)

# the evidence of a release for the data protection officer (meddocan_deid/evidence)
app.command("sample", short_help="Draw a random sample of a run's reports for a reviewer.")(
    sample_command
)
app.command("certify", short_help="Estimate the PHI left in a release from a reviewed sample.")(
    certify_command
)
app.command(
    "risk", short_help="k-anonymity and l-diversity of a table, and its least generalisation."
)(risk_command)
app.command("statement", short_help="Write the release statement of a run (Markdown).")(
    statement_command
)
app.add_typer(
    audit_app, name="audit", short_help="Verify the audit log of runs and service requests."
)


def main(argv: list[str] | None = None) -> None:
    try:
        app(args=argv, prog_name="meddocan-deid")
    except SystemExit:
        raise
    except Exception as err:  # noqa: BLE001 - no traceback (it could quote a report)
        if os.environ.get("MEDDOCAN_DEID_DEBUG"):
            raise
        print(
            f"meddocan-deid: internal error ({type(err).__name__}); set MEDDOCAN_DEID_DEBUG=1 "
            "for details",
            file=sys.stderr,
        )
        sys.exit(3)


if __name__ == "__main__":
    main()
