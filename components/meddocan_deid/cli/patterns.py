"""`meddocan-deid add-patterns MODEL DIR OUTPUT_MODEL`: save a pipeline with a hospital's own
field keys (every `DIR/*.jsonl`, the form of configs/patterns/fields.jsonl) added to its
`fields` component, so that runs need no `--extra-patterns`."""

from pathlib import Path

import typer

from ..pipeline.fields import add_field_files, read_field_files

ADD_PATTERNS_EPILOG = """\b
Example:
  meddocan-deid add-patterns es_meddocan_deid hospital_keys/ es_meddocan_deid_hospital
  meddocan-deid deidentify in/ out/ --mode tag --model es_meddocan_deid_hospital
"""


def add_patterns_command(
    model: str = typer.Argument(..., metavar="MODEL", help="Installed pipeline name or path."),
    folder: Path = typer.Argument(..., metavar="DIR", help="Folder of *.jsonl field-key files."),
    output_model: Path = typer.Argument(
        ..., metavar="OUTPUT_MODEL", help="New pipeline folder (must not exist)."
    ),
    version_tag: str = typer.Option(
        "keys", "--version-tag", help="Local version part: <version>+<tag> in the new meta."
    ),
):
    """Save MODEL with the field keys of DIR added, as OUTPUT_MODEL."""
    import re

    import spacy

    def fail(message: str):
        typer.echo(f"meddocan-deid: {message}", err=True)
        raise typer.Exit(2)

    if output_model.exists():
        fail(f"{output_model}: already exists; not overwritten")
    if not re.fullmatch(r"[a-z0-9]+(?:\.[a-z0-9]+)*", version_tag):
        fail(f"--version-tag: {version_tag!r}: lower-case letters and digits, parts joined by '.'")
    try:
        read_field_files(folder)  # before loading the model
    except ValueError as err:
        fail(str(err))
    try:
        nlp = spacy.load(model)
    except Exception as err:  # noqa: BLE001
        fail(f"cannot load the model {model!r} ({type(err).__name__})")
    try:
        added = add_field_files(nlp, folder)
    except ValueError as err:
        fail(str(err))
    version = str(nlp.meta.get("version") or "0.0.0")
    base, _, local = version.partition("+")
    nlp.meta["version"] = f"{base}+{local + '.' if local else ''}{version_tag}"
    nlp.to_disk(output_model)
    n_keys = sum(len(e["keys"]) + len(e["phrases"]) for e in added)
    typer.echo(
        f"{len(added)} entries ({n_keys} keys and phrases) added -> {output_model} "
        f"(version {nlp.meta['version']})",
        err=True,
    )
