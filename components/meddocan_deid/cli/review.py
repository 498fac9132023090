"""`meddocan-deid review`: the review site of an earlier run, rebuilt from its stored files."""

from pathlib import Path

import typer

from ..brat import BratError
from ..deid.review import ReviewSite, StoredDataError, reports_from_folders, run_mode
from ..engine.output import check_private_dir
from ..errors import InputError, RunError
from .options import ReviewLanguage


def review_command(
    output: Path = typer.Argument(
        ..., metavar="OUTPUT", help="Output folder of a deidentify run (.txt + .ann)."
    ),
    private_dir: Path = typer.Argument(
        ..., metavar="PRIVATE_DIR", help="The --private-dir of that run (originals + .ann)."
    ),
    review_dir: Path = typer.Argument(
        ..., metavar="REVIEW_DIR", help="Where to write the review site (not inside OUTPUT)."
    ),
    language: ReviewLanguage = typer.Option(
        "en",
        "--language",
        help="The language the site reads in: en (English) or es (Spanish).",
    ),
):
    """Write the review site of an earlier run from its stored files (OUTPUT and --private-dir)."""
    typer.echo(
        f"meddocan-deid: warning: the review site in {review_dir} shows the original reports "
        "(PHI); "
        "keep it private and never share it with the output",
        err=True,
    )
    try:
        for folder, what in ((output, "OUTPUT"), (private_dir, "PRIVATE_DIR")):
            if not Path(folder).is_dir():
                raise RunError(f"{folder}: {what} folder not found")
        check_private_dir(review_dir, output, None, "REVIEW_DIR")
        site = ReviewSite(
            review_dir, mode=run_mode(output), language=ReviewLanguage(language).value
        )
        for report in reports_from_folders(output, private_dir):
            site.add(report)
        index = site.close()
    except (RunError, InputError, StoredDataError, BratError) as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"review site of {len(site.rows)} reports -> {index}", err=True)
