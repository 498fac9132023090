"""`meddocan-deid sample`, `certify`, `risk` and `statement`: the evidence of a release for the
data protection officer (meddocan_deid/evidence). Messages name files, lines, ids and counts,
never report text or cell values."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from ..deid.policy import load_policy
from ..deid.tables import open_table
from ..errors import InputError, PolicyError, RunError
from ..evidence.certify import certify
from ..evidence.generalise import KINDS, guess_kind
from ..evidence.marks import read_labelstudio_marks, read_marks
from ..evidence.review_order import confidence_order
from ..evidence.sampling import SAMPLE_FILE, read_types, write_sample
from ..evidence.statement import write_statement
from ..evidence.table_risk import least_generalisation
from ..evidence.targets import ReleaseTargets, TableTargets
from ..evidence.text_table import KINDS as TEXT_KINDS
from ..evidence.text_table import kept_table
from ..files import atomic_write
from ..pipeline.loading import load_model

CERTIFICATE_FILE = "certificate.json"


def _fail(err: Exception) -> None:
    typer.echo(f"meddocan-deid: {err}", err=True)
    raise typer.Exit(2) from None


def _policy(path: Path | None):
    return load_policy(path) if path is not None else None


def sample_command(
    run_dir: Path = typer.Argument(..., metavar="RUN_DIR", help="Output folder of a run."),
    private_dir: Path = typer.Option(
        ..., "--private-dir", help="The run's --private-dir (originals and the spans found)."
    ),
    sample_dir: Path = typer.Option(
        ..., "--out", help="Where to write the sample (private: it holds the originals)."
    ),
    n: int = typer.Option(60, "--n", help="Reports to sample."),
    seed: int = typer.Option(..., "--seed", help="The random seed (recorded)."),
    types: Path | None = typer.Option(
        None, "--types", help="`id<TAB>type` lines: the document type of each report (strata)."
    ),
    model: str | None = typer.Option(
        None,
        "--model",
        help="A pipeline with ent_confidence: the least certain reports first (else random).",
    ),
):
    """Draw a random sample of a run's reports for a reviewer, stratified by document type."""
    try:
        record = write_sample(
            run_dir,
            private_dir,
            sample_dir,
            n=n,
            seed=seed,
            types=read_types(types) if types is not None else None,
            order=confidence_order(load_model(model)) if model is not None else None,
        )
    except (RunError, InputError) as err:
        _fail(err)
    strata = ", ".join(f"{s} {v['sampled']}/{v['population']}" for s, v in record["strata"].items())
    typer.echo(
        f"sampled {record['n']} of {record['population']} reports (seed {seed}; {strata}) -> "
        f"{sample_dir} (PHI: keep it private); mark them in marks.jsonl or labelstudio.json, "
        "then run certify",
        err=True,
    )


def certify_command(
    marks: Path = typer.Argument(
        ..., metavar="MARKS", help="The sample folder, or its reviewed marks.jsonl."
    ),
    labelstudio: Path | None = typer.Option(
        None, "--labelstudio", help="A Label Studio JSON export of the sample: its annotations."
    ),
    policy: Path | None = typer.Option(
        None, "--policy", help="The policy file whose [release] sets the target."
    ),
    target: float | None = typer.Option(
        None, "--target", help="Upper bound of the share of reports with PHI left (overrides)."
    ),
    out: Path | None = typer.Option(
        None, "--out", help=f"Where to write the result (default: RUN_DIR/{CERTIFICATE_FILE})."
    ),
):
    """The share of sampled reports and PHI mentions left in clear, with exact upper bounds,
    and pass or fail against the release target. Exit code 1 on fail."""
    try:
        reports = (
            read_labelstudio_marks(labelstudio, marks)
            if labelstudio is not None
            else read_marks(marks)
        )
        loaded = _policy(policy)
        targets = (loaded.release if loaded is not None else None) or ReleaseTargets()
        if target is not None:
            targets = ReleaseTargets.model_validate(
                {**targets.model_dump(), "max_reports_with_phi": target}
            )
        result = certify(reports, targets)
    except (RunError, PolicyError) as err:
        _fail(err)
    except ValueError as err:  # pydantic's: a bad --target
        _fail(RunError(f"--target: expected a share between 0 and 1 ({type(err).__name__})"))
    sample = _sample_record(marks)
    record = {
        "sample": {k: sample.get(k) for k in ("run", "run_digest", "seed", "n", "population")},
        "policy": {"path": str(policy), "digest": loaded.digest()} if loaded else None,
        **result.to_dict(),
    }
    dest = out or (Path(sample["run"]) / CERTIFICATE_FILE if sample.get("run") else None)
    for line in result.lines():
        typer.echo(line)
    if dest is not None:
        atomic_write(dest, json.dumps(record, indent=2) + "\n")
        typer.echo(f"-> {dest}", err=True)
    raise typer.Exit(0 if result.passed else 1)


def _sample_record(marks: Path) -> dict:
    folder = marks if marks.is_dir() else marks.parent
    try:
        return json.loads((folder / SAMPLE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


RISK_FILE = "table_risk.json"


def _quasi_identifiers(spec: str, columns: list[str], table_name: str) -> dict[str, str]:
    kinds = {}
    for part in [p.strip() for p in spec.split(",") if p.strip()]:
        name, _, kind = part.partition(":")
        if name not in columns:
            raise RunError(
                f"{table_name}: --qi: no column {name!r} (columns: {', '.join(columns)})"
            )
        kind = kind or guess_kind(name)
        if kind not in KINDS:
            raise RunError(f"--qi: {part!r}: unknown kind (allowed: {', '.join(KINDS)})")
        kinds[name] = kind
    if not kinds:
        raise RunError("--qi: name at least one column")
    return kinds


def risk_command(
    table_path: Path = typer.Argument(
        ...,
        metavar="TABLE",
        help="A table (csv, tsv, xlsx, ...), or a run's output folder: the values its text kept.",
    ),
    qi: str | None = typer.Option(
        None,
        "--qi",
        help="Quasi-identifier columns, comma-separated; `name:kind` sets a kind (age, date, "
        "postal_code, town, category), else it is guessed from the name. A run folder: some of "
        "age, sex, postal_code, town, date (default: those it kept).",
    ),
    sensitive: str | None = typer.Option(None, "--sensitive", help="The sensitive column (l)."),
    id_column: str | None = typer.Option(
        None, "--id", help="The column naming rows at risk (default: the row number)."
    ),
    policy: Path | None = typer.Option(
        None, "--policy", help="The policy file whose [tables] sets k, l and the ladders."
    ),
    k: int | None = typer.Option(None, "--k", help="The target k (overrides the policy's)."),
    out: Path | None = typer.Option(None, "--out", help="Write the result as JSON (no values)."),
    write: Path | None = typer.Option(
        None, "--write", help="Write the generalised table (same format; QI columns replaced)."
    ),
):
    """k-anonymity and l-diversity of a table's quasi-identifiers, its rows at risk by id, and
    the least generalisation of the policy's ladders that reaches the target k. Exit code 1
    when none does."""
    request = RiskRequest(table_path, qi, sensitive, id_column, policy, k, out, write)
    try:
        targets = _risk_targets(request)
        columns = _run_folder_columns(request) if table_path.is_dir() else _table_columns(request)
        report, generalised = least_generalisation(
            columns.values, columns.kinds, columns.ids, targets, columns.sensitive, sensitive
        )
    except (RunError, PolicyError, InputError) as err:
        _fail(err)
    except ValueError as err:
        _fail(RunError(f"{table_path}: {err}"))
    _write_risk(request, columns, report, generalised)
    raise typer.Exit(0 if generalised is not None else 1)


@dataclass(frozen=True)
class RiskRequest:
    """The arguments of `meddocan-deid risk` (see `risk_command`)."""

    table_path: Path
    qi: str | None
    sensitive: str | None
    id_column: str | None
    policy: Path | None
    k: int | None
    out: Path | None
    write: Path | None


@dataclass(frozen=True)
class _RiskColumns:
    """The columns measured: the quasi-identifiers' values and kinds, the rows' ids, the
    sensitive column's values (None: none) and the table they came from (None: a run folder)."""

    values: dict[str, list]
    kinds: dict[str, str]
    ids: list[str]
    sensitive: list | None
    table: Any = None


def _risk_targets(request: RiskRequest) -> TableTargets:
    """The policy's [tables] targets (the defaults without one), `--k` overriding its k."""
    loaded = _policy(request.policy)
    targets = (loaded.tables if loaded is not None else None) or TableTargets()
    if request.k is not None:
        targets = TableTargets.model_validate({**targets.model_dump(), "k": request.k})
    return targets


def _run_folder_columns(request: RiskRequest) -> _RiskColumns:
    """The values a run's reports kept in clear, of the `--qi` kinds (default: those kept);
    RunError for a table's option, no value kept or an unknown kind."""
    table_path, qi = request.table_path, request.qi
    if request.sensitive or request.id_column or request.write:
        raise RunError("--sensitive, --id and --write are for tables, not a run folder")
    values, ids, _ = kept_table(table_path)
    names = [c.strip() for c in qi.split(",")] if qi else [c for c in values if any(values[c])]
    if not names:
        raise RunError(
            f"{table_path}: its reports keep no value of {', '.join(TEXT_KINDS)} in clear"
        )
    unknown = [c for c in names if c not in TEXT_KINDS]
    if unknown:
        raise RunError(f"--qi: {', '.join(unknown)} (a run folder has {', '.join(TEXT_KINDS)})")
    kinds = {c: TEXT_KINDS[c] for c in names}
    return _RiskColumns({c: values[c] for c in names}, kinds, ids, None)


def _table_columns(request: RiskRequest) -> _RiskColumns:
    """The `--qi` columns of a table, its ids (`--id`, else the row number) and its `--sensitive`
    column; RunError for no `--qi`, a missing column or a row the table could not read."""
    table_path, sensitive, id_column = request.table_path, request.sensitive, request.id_column
    if not request.qi:
        raise RunError("--qi: name the quasi-identifier columns of the table")
    table = open_table(table_path)
    kinds = _quasi_identifiers(request.qi, list(table.columns), str(table_path))
    for name in (sensitive, id_column):
        if name is not None and name not in table.columns:
            raise RunError(f"{table_path}: no column {name!r}")
    bad = next((i for i in range(table.n) if table.error(i) is not None), None)
    if bad is not None:
        raise RunError(f"{table_path}: {table.where(bad)}: {table.error(bad)}")
    values = {c: [table.value(i, c) for i in range(table.n)] for c in kinds}
    ids = [str(table.value(i, id_column)) if id_column else str(i + 1) for i in range(table.n)]
    sensitive_values = [table.value(i, sensitive) for i in range(table.n)] if sensitive else None
    return _RiskColumns(values, kinds, ids, sensitive_values, table)


def _write_risk(request: RiskRequest, columns: _RiskColumns, report, generalised) -> None:
    """The report's lines on stdout; with `--out` the result as JSON; with `--write` (a table
    that reached the target) the generalised table, its withheld rows marked."""
    for line in report.lines():
        typer.echo(line)
    out, write = request.out, request.write
    if out is not None:
        atomic_write(
            out,
            json.dumps({"table": str(request.table_path), **report.to_dict()}, indent=2) + "\n",
        )
        typer.echo(f"-> {out}", err=True)
    if write is not None and generalised is not None and columns.table is not None:
        withheld = set(report.after.suppressed) if report.after else set()
        status = ["withheld" if i in withheld else "ok" for i in columns.ids]
        updates: dict[str, list[str | None]] = {c: list(v) for c, v in generalised.items()}
        columns.table.write(write, updates, status, "anonymity")
        typer.echo(f"generalised table -> {write}", err=True)


def statement_command(
    run_dir: Path = typer.Argument(..., metavar="RUN_DIR", help="Output folder of a run."),
    out: Path | None = typer.Option(
        None, "--out", help="Where to write the statement (default: RUN_DIR/statement.md)."
    ),
    model: str | None = typer.Option(
        None, "--model", help="The pipeline whose meta.json has the scores (default: the run's)."
    ),
):
    """Write the release statement of a run for the data protection officer (Markdown): what
    was removed and how, the model's scores, the residual-risk estimate and the table risk
    when the folder has them, the audit log's digest, the known limits."""
    try:
        dest = write_statement(run_dir, out, model)
    except RunError as err:
        _fail(err)
    typer.echo(f"release statement -> {dest}", err=True)
