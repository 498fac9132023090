"""`meddocan-deid export` and `meddocan-deid import`: the annotation round trip.

    meddocan-deid export INPUT EXPORT_DIR --format brat|labelstudio|doccano [--model NAME]
    meddocan-deid import SRC OUT.spacy --format brat|labelstudio|doccano [--alignment expand]

`export` runs the pipeline and writes the ORIGINAL reports with their entities (original
offsets) for correction in brat/INCEpTION, Label Studio or doccano: PHI, refused inside
INPUT. `import` turns the corrected files into a DocBin for `spacy project run adapt`.
Messages name files, lines, tasks and offsets, never report text.
"""

from enum import Enum
from pathlib import Path

import typer

from ..annotations import AnnotatedReport, AnnotationError, read_annotations, write_annotations
from ..annotations.docbin import to_docbin
from ..constants import DEFAULT_MODEL
from ..errors import InputError, RunError
from ..formats.sources import input_kind, iter_items, load_item, resolve_encoding
from ..pipeline.loading import load_model


class Format(str, Enum):
    brat = "brat"
    labelstudio = "labelstudio"
    doccano = "doccano"


class Alignment(str, Enum):
    strict = "strict"
    expand = "expand"


def check_export_dir(export_dir: Path, input_path: Path, what: str = "EXPORT_DIR") -> None:
    """Refuse a folder for the exported PHI inside (or equal to) the INPUT folder: the next run
    would read its `.txt` copies as reports."""
    out, inp = Path(export_dir).resolve(), Path(input_path).resolve()
    if inp.is_dir() and (out == inp or inp in out.parents):
        raise RunError(
            f"{export_dir}: {what} must not be the input folder or inside it (it holds the "
            "reports' PHI)"
        )
    if out.exists() and not out.is_dir():
        raise RunError(f"{export_dir}: {what} exists and is not a folder")


def model_version(nlp) -> str:
    meta = getattr(nlp, "meta", {}) or {}
    name = f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_")
    return f"{name}-{meta.get('version', '')}" if name else ""


def export_reports(
    input_path: Path,
    export_dir: Path,
    fmt: str,
    *,
    nlp=None,
    model: str = DEFAULT_MODEL,
    encoding: str = "utf-8",
    batch_size: int = 32,
) -> dict:
    """Run the pipeline over INPUT and write its entities in `fmt` under `export_dir`.
    Returns counts: reports written, failed (unreadable files: `failures`, by file name)."""
    try:
        input_kind(input_path)
        encoding = resolve_encoding(encoding)
    except InputError as err:
        raise RunError(str(err)) from None
    check_export_dir(export_dir, input_path)
    items, failures = [], []
    try:
        for item in iter_items(input_path, encoding):
            if item.not_read is not None or item.interchange is not None:
                continue  # not a report: no text to annotate (FHIR, HL7 v2: structured records)
            item = load_item(item, 1_000_000, encoding)
            if item.error is not None:
                failures.append(item.error)
            else:
                items.append(item)
    except InputError as err:
        raise RunError(str(err)) from None
    if nlp is None:
        nlp = load_model(model)
    reports = []
    texts = [item.record.text for item in items if item.record is not None]
    for item, text, doc in zip(items, texts, nlp.pipe(texts, batch_size=batch_size)):
        reports.append(
            AnnotatedReport(
                item.stem, text, [(e.label_, e.start_char, e.end_char) for e in doc.ents]
            )
        )
    try:
        written = write_annotations(fmt, reports, export_dir, model_version=model_version(nlp))
    except (AnnotationError, OSError) as err:
        raise RunError(f"{export_dir}: cannot write the export ({err})") from None
    return {
        "written": len(reports),
        "failed": len(failures),
        "failures": failures,
        "entities": sum(len(r.spans) for r in reports),
        "path": str(written),
    }


def import_annotations(
    src: Path, output: Path, fmt: str, *, alignment: str = "strict", use_predictions: bool = False
) -> list[str]:
    """Read corrected annotations and write them as a DocBin with the project tokenizer.
    Returns the report lines (counts, misaligned spans by offsets and shapes)."""
    notes: list[str] = []
    try:
        reports = read_annotations(fmt, Path(src), use_predictions=use_predictions, notes=notes)
        if not reports:
            raise AnnotationError(f"{src}: no annotated report to import")
        db, stats = to_docbin(reports, alignment=alignment)
    except AnnotationError as err:
        raise RunError(str(err)) from None
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(output)
    return notes + stats.lines() + [f"-> {output}"]


EXPORT_EPILOG = """\b
Examples:
  meddocan-deid export informes/ correccion/ --format labelstudio
  meddocan-deid import export_labelstudio.json local.spacy --format labelstudio
"""


def export_command(
    input_path: Path = typer.Argument(
        ...,
        metavar="INPUT",
        help="A .txt file, a folder of .txt files (recursive) or a JSONL file (id, text).",
    ),
    export_dir: Path = typer.Argument(
        ...,
        metavar="EXPORT_DIR",
        help="Folder for the export. It holds the original reports (PHI): keep it private; "
        "refused inside INPUT.",
    ),
    fmt: Format = typer.Option(
        ...,
        "--format",
        help="brat (.txt + .ann, for brat and INCEpTION), labelstudio (task list JSON + "
        "labelling config) or doccano (JSONL).",
    ),
    model: str = typer.Option(DEFAULT_MODEL, "--model", help="Installed pipeline name or path."),
    encoding: str = typer.Option("utf-8", "--encoding", help="Encoding of the input files."),
    batch_size: int = typer.Option(32, "--batch-size", min=1, help="Reports per nlp.pipe batch."),
):
    """Export the pipeline's entities on the ORIGINAL reports for correction.

    The export holds the original texts and their PHI in the original offsets:
    keep it private. EXPORT_DIR inside INPUT is refused."""
    typer.echo(
        f"meddocan-deid: warning: {export_dir} will hold the original reports (PHI); keep it "
        "private",
        err=True,
    )
    try:
        result = export_reports(
            input_path, export_dir, fmt.value, model=model, encoding=encoding, batch_size=batch_size
        )
    except RunError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    for failure in result["failures"]:
        typer.echo(f"meddocan-deid: {failure}", err=True)
    typer.echo(
        f"reports exported {result['written']}, failed {result['failed']}, entities "
        f"{result['entities']} "
        f"-> {result['path']}",
        err=True,
    )
    raise typer.Exit(1 if result["failed"] else 0)


def import_command(
    src: Path = typer.Argument(
        ...,
        metavar="SRC",
        help="A BRAT folder, a Label Studio JSON export or a doccano JSONL file.",
    ),
    output: Path = typer.Argument(..., metavar="OUT.spacy", help="The DocBin to write."),
    fmt: Format = typer.Option(..., "--format", help="brat, labelstudio or doccano."),
    alignment: Alignment = typer.Option(
        Alignment.strict,
        "--alignment",
        help="strict: a span off token boundaries is an error; expand: it grows to the tokens "
        "it touches (counted).",
    ),
    use_predictions: bool = typer.Option(
        False,
        "--use-predictions",
        help="Label Studio: take a task's prediction when it has no annotation (else the task "
        "is skipped).",
    ),
):
    """Import corrected annotations as a DocBin (project tokenizer) for `adapt`.

    Alignment is reported as `spacy project run convert` reports it: counts, and
    misaligned spans by file, offsets and character shapes, never text."""
    try:
        lines = import_annotations(
            src, output, fmt.value, alignment=alignment.value, use_predictions=use_predictions
        )
    except RunError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    for line in lines:
        typer.echo(line)
