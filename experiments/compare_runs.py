"""Compare two trees of de-identification runs file by file (a refactoring check).

    python experiments/compare_runs.py BASE AFTER

Every file under BASE and AFTER (same relative paths) is compared byte for byte, except
the run reports (`run_report.json`, or any `--report` JSON whose name ends in `report.json`):
those are compared as JSON without the timing fields (`seconds`, `model_load_seconds`,
`written_per_second`) and without the paths that name BASE or AFTER themselves. Prints
the number of identical and differing files per suffix and in all (and the first differing
paths, never their content); exit status 1 on any difference or any file found on one side
only. `--exclude GLOB` skips files such as the runs' own logs. `--zip-members` compares the
Office files (.docx, .xlsx: zip files whose entries are dated when they are written) member by
member instead, without the entry dates and without the `dcterms:modified` stamp that
openpyxl writes into docProps/core.xml: every other byte of every member must be the same.
An audit log (`audit_log.jsonl`) is compared line by line as JSON without each line's clock
(`time`, `seconds`) and the chain link that hashes it (`prev`); the run report's `audit.sha256`
(the digest of that timed line) is left out likewise. With `--zip-members` the audit lines'
`output_sha256` is left out too: it digests the Office files with their dates, and the outputs
themselves are compared file by file.
"""

import fnmatch
import json
import re
import zipfile
from pathlib import Path
from typing import Annotated

import typer

TIMING_FIELDS = ("seconds", "model_load_seconds", "written_per_second")
AUDIT_LOG = "audit_log.jsonl"
AUDIT_CLOCK_FIELDS = ("time", "seconds", "prev")  # `prev` hashes the previous, timed line
OFFICE_SUFFIXES = (".docx", ".xlsx")
MODIFIED_STAMP = re.compile(rb"<dcterms:modified[^>]*>[^<]*</dcterms:modified>")


def _files(root: Path, exclude: list[str]) -> dict[str, Path]:
    files = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
    return {
        rel: p
        for rel, p in files.items()
        if not any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(p.name, pat) for pat in exclude)
    }


def _report(path: Path, root: Path):
    data = json.loads(path.read_text(encoding="utf-8"))
    for field in TIMING_FIELDS:
        data.pop(field, None)
    if isinstance(data.get("audit"), dict):
        data["audit"].pop("sha256", None)  # the digest of the audit line, which is timed

    def strip_root(value):  # the output and input paths name the tree the run wrote into
        if isinstance(value, str):
            return value.replace(str(root), "<ROOT>")
        if isinstance(value, dict):
            return {k: strip_root(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip_root(v) for v in value]
        return value

    return strip_root(data)


def _members(path: Path) -> list[tuple[str, bytes]]:
    """An Office file's members in order, their bytes without the time they were saved."""
    with zipfile.ZipFile(path) as z:
        return [
            (
                name,
                MODIFIED_STAMP.sub(b"", z.read(name))
                if name == "docProps/core.xml"
                else z.read(name),
            )
            for name in z.namelist()
        ]


def _audit_lines(path: Path, zip_members: bool) -> list[dict]:
    skip = AUDIT_CLOCK_FIELDS + (("output_sha256",) if zip_members else ())
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        for field in skip:
            entry.pop(field, None)
        lines.append(entry)
    return lines


def same_file(
    rel: str,
    base: Path,
    after: Path,
    base_root: Path,
    after_root: Path,
    zip_members: bool = False,
) -> bool:
    if zip_members and Path(rel).suffix.lower() in OFFICE_SUFFIXES:
        try:
            return _members(base) == _members(after)
        except zipfile.BadZipFile:
            pass  # not a zip file: compared as bytes
    if Path(rel).name == AUDIT_LOG:
        try:
            return _audit_lines(base, zip_members) == _audit_lines(after, zip_members)
        except (ValueError, UnicodeDecodeError):
            pass  # not JSON lines: compared as bytes
    if rel.endswith("report.json"):
        try:
            return _report(base, base_root) == _report(after, after_root)
        except (ValueError, UnicodeDecodeError):
            pass  # not JSON: compared as bytes
    return base.read_bytes() == after.read_bytes()


def main(
    base: Annotated[
        Path, typer.Argument(help="Folder of the runs made with the code before the change")
    ],
    after: Annotated[
        Path, typer.Argument(help="Folder of the same runs made with the code after it")
    ],
    show: Annotated[int, typer.Option(help="How many differing paths to list")] = 20,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            help="Skip files whose relative path or name matches "
            "this glob (repeatable), e.g. the runs' logs"
        ),
    ] = None,
    zip_members: Annotated[
        bool,
        typer.Option(
            help="Compare .docx and .xlsx member by member, without the entry dates and the "
            "modified stamp"
        ),
    ] = False,
) -> None:
    for root in (base, after):
        if not root.is_dir():
            typer.echo(f"{root}: folder not found", err=True)
            raise typer.Exit(2)
    base_files, after_files = _files(base, exclude or []), _files(after, exclude or [])
    only_base = sorted(set(base_files) - set(after_files))
    only_after = sorted(set(after_files) - set(base_files))
    identical, differing = 0, []  # type: int, List[str]
    by_suffix: dict[str, list[int]] = {}
    for rel in sorted(set(base_files) & set(after_files)):
        ok = same_file(rel, base_files[rel], after_files[rel], base, after, zip_members)
        counts = by_suffix.setdefault(Path(rel).suffix or "(none)", [0, 0])
        counts[0 if ok else 1] += 1
        if ok:
            identical += 1
        else:
            differing.append(rel)
    for suffix, (same, diff) in sorted(by_suffix.items()):
        typer.echo(f"{suffix}: {same} identical, {diff} differing")
    typer.echo(
        f"identical {identical}, differing {len(differing)}, only in BASE {len(only_base)}, "
        f"only in AFTER {len(only_after)}"
    )
    for title, paths in (
        ("differing", differing),
        ("only in BASE", only_base),
        ("only in AFTER", only_after),
    ):
        for rel in paths[:show]:
            typer.echo(f"  {title}: {rel}")
    raise typer.Exit(1 if differing or only_base or only_after else 0)


if __name__ == "__main__":
    typer.run(main)
