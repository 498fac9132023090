"""A table run of `meddocan-deid deidentify` (a .csv, .tsv, .xlsx, .parquet input, or a
.jsonl input with its columns named): the de-identified table goes to OUTPUT/<input's
name>, in its format, with the run report beside it (OUTPUT/run_report.json, or --report).

The table is written whole, through a temporary file renamed into place: a killed run
leaves the earlier output or none, and a rerun does the whole table again. An existing
output table is replaced only with --overwrite. The run holds OUTPUT's lock, as a report
run does. Messages and the report name files, lines and columns, never cell values.
"""
import time
from pathlib import Path
from typing import Optional

from .. import __version__
from ..deid import fingerprint as fp
from ..formats.sources import resolve_encoding
from ..deid.tables import (TableSettings, TableSpec, check_columns, deidentify_loaded, failed_rows, format_of,
                           open_table)
from ..errors import InputError, RunError
from .config import RunConfig
from .output import RunLock, write_json
from .runner import Run

MAX_REPORTED = 1000  # failed rows listed in the run report (all are counted)


def run_table(config: RunConfig, columns: TableSpec, *, nlp=None, report_options: Optional[dict] = None) -> dict:
    """De-identify the table `config.input` into the folder `config.output`; returns the run
    report (also written). Raises RunError (nothing written) when the table cannot be read,
    lacks a named column, would replace the input or an output without `overwrite`."""
    start = time.time()
    source = Path(config.input)
    out_dir = Path(config.output)
    target = out_dir / source.name
    if config.private_dir is not None or config.review_dir is not None or config.export_format is not None:
        raise RunError("--private-dir, --review and --export-format are for reports, not tables")
    try:
        if out_dir.exists() and not out_dir.is_dir():
            raise InputError(f"{out_dir}: output exists and is not a folder")
        if target.resolve() == source.resolve():
            raise InputError(f"{out_dir}: the output table would replace the input; choose another output folder")
        if target.exists() and not config.overwrite:
            raise InputError(f"{target}: the output table exists; give --overwrite to replace it")
        settings = TableSettings(batch_size=config.batch_size, n_process=config.n_process,
                                 time_limit=config.time_limit, encoding=resolve_encoding(config.encoding))
        table = open_table(source, fmt="jsonl" if source.suffix.lower() == ".jsonl" else None, sheet=columns.sheet,
                           encoding=settings.encoding)
        check_columns(table, columns)
    except InputError as err:
        raise RunError(str(err)) from None
    run = Run(config, nlp)  # the report run's model loading: privacy level and extra field keys
    run.load_model()
    run.make_deidentifier()
    load_seconds = time.time() - start
    fingerprint = fp.make_fingerprint(mode=config.mode, key=config.key, policy_digest=config.run_policy_digest,
                                      nlp=run.nlp, model=config.model, library_version=__version__,
                                      options=config.options, field_keys=run.field_keys)
    existed = out_dir.is_dir()
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        with RunLock(out_dir):
            updates, status, per_label = deidentify_loaded(table, columns=columns, deidentifier=run.deidentifier,
                                                           settings=settings)
            table.write(target, updates, status, columns.status_column)
            failed = failed_rows(table, columns, status)
            meta = getattr(run.nlp, "meta", {}) or {}
            report = {
                "mode": config.mode,
                "input": str(source),
                "output": str(out_dir),
                "table": str(target),
                "format": format_of(table),
                "model": {"name": f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_") or config.model,
                          "version": meta.get("version")},
                "library_version": __version__,
                "fingerprint": fingerprint,
                "options": report_options or {},
                "columns": {"id": columns.id_column, "text": list(columns.text_columns),
                            "phi": dict(columns.phi_columns), "patient": columns.patient_column,
                            "status": columns.status_column, "phi_to_text": columns.phi_to_text,
                            **({"sheet": columns.sheet} if columns.sheet else {})},
                "rows": {"read": table.n, "ok": table.n - len(failed), "failed": len(failed)},
                "failed": failed[:MAX_REPORTED],
                "phi_per_label": dict(sorted(per_label.items())),
                "seconds": round(time.time() - start, 3),
                "model_load_seconds": round(load_seconds, 3),
            }
            write_json(config.report_file, report)
            return report
    except InputError as err:  # e.g. another run holds the lock
        raise RunError(str(err)) from None
    finally:
        if not existed and not any(out_dir.iterdir()):
            out_dir.rmdir()


def table_failure_lines(report: dict, limit: int = 5):
    """Lines for stderr about failed rows (file, line, id and reason; never a cell value)."""
    failed = report.get("failed") or []
    lines = [f"failed: {f['where']}{' (id ' + str(f['id']) + ')' if 'id' in f else ''}: {f['reason']}"
             for f in failed[:limit]]
    if report["rows"]["failed"] > limit:
        lines.append(f"... and {report['rows']['failed'] - limit} more (see the run report)")
    return lines
