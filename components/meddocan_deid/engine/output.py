"""The output folder of a run: its lock, the input digests of resume, the crash-safe writing
of each report (`.ann` first, `.txt` last, each through a temporary file renamed into place)
and of its private copy, and the removal of temporary files a killed run left.

Resume: each written report's input digest (SHA-256 of the file's bytes, or of the JSONL
line) is appended to `OUTPUT/.meddocan-deid-inputs.jsonl` after its `.txt`; a report is
skipped only when its `.txt` exists and its recorded digest is that of the input now.
"""

import errno
import hashlib
import json
import os
import re
from pathlib import Path

from ..brat import format_output_ann, format_private_ann
from ..deid.operators import Replacement
from ..errors import InputError, OutputFullError, OutputLockedError
from ..files import atomic_write
from ..formats import registry
from ..formats.base import DocumentError

TMP_FILE = re.compile(
    r"^\..+\.(txt|ann|json|jsonl|ndjson|hl7|docx|pdf|png|jpg|jpeg|tif|tiff)\.[A-Za-z0-9_]+\.tmp$"
)
DIGESTS_NAME = ".meddocan-deid-inputs.jsonl"
LOCK_NAME = ".meddocan-deid.lock"
# a full disk or an exhausted quota: the run stops (every later write would fail too)
DISK_FULL_ERRNOS = frozenset(
    e for e in (getattr(errno, "ENOSPC", None), getattr(errno, "EDQUOT", None)) if e
)


def is_disk_full(err: BaseException) -> bool:
    return (
        isinstance(err, OSError)
        and not isinstance(err, OutputFullError)
        and err.errno in DISK_FULL_ERRNOS
    )


def output_paths(output: Path, stem: str):
    base = Path(output) / stem
    return base.with_name(base.name + ".txt"), base.with_name(base.name + ".ann")


def is_done(
    output: Path, stem: str, digest: str | None = None, digests: dict[str, str] | None = None
) -> bool:
    """The report's `.txt` exists and, when `digest` is given, the input digest recorded
    for it (`digests`, as read by `read_digests`) is `digest`."""
    if not output_paths(output, stem)[0].exists():
        return False
    if digest is None:
        return True
    return digests is not None and digests.get(stem) == digest


def read_digests(output: Path) -> dict[str, str]:
    """stem -> the digest of the input its report was made from (the last line wins; a
    line cut by a kill is ignored)."""
    path = Path(output) / DIGESTS_NAME
    found: dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return found
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(obj, dict)
            and isinstance(obj.get("stem"), str)
            and isinstance(obj.get("sha256"), str)
        ):
            found[obj["stem"]] = obj["sha256"]
    return found


def record_digest(output: Path, stem: str, digest: str) -> None:
    """Append the input digest of a report just written (after its `.txt`)."""
    with open(Path(output) / DIGESTS_NAME, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"stem": stem, "sha256": digest}) + "\n")


def compact_digests(output: Path) -> None:
    """Rewrite the digest file sorted, one line per report (the same run gives the same
    file, resumed or not)."""
    path = Path(output) / DIGESTS_NAME
    if not path.exists():
        return
    found = read_digests(output)
    atomic_write(
        path, "".join(json.dumps({"stem": k, "sha256": found[k]}) + "\n" for k in sorted(found))
    )


class RunLock:
    """`OUTPUT/.meddocan-deid.lock`, created with O_EXCL and holding the pid of the run:
    a second run into the same folder is refused (OutputLockedError). A lock whose pid is
    not running is stale (a killed run) and taken over, with a warning through `warn`."""

    def __init__(self, output: Path, warn=None):
        self.path = Path(output) / LOCK_NAME
        self.warn = warn
        self.held = False

    def acquire(self) -> "RunLock":
        for _attempt in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                pid = _lock_pid(self.path)
                if pid is not None and _running(pid):
                    raise OutputLockedError(
                        f"{self.path.parent}: another run (pid {pid}) is writing into this "
                        "folder; wait for it to end or choose another output folder (if no run "
                        f"is going on, remove {self.path})"
                    ) from None
                if self.warn is not None:
                    self.warn(
                        f"{self.path}: stale lock of a run that is no longer running "
                        f"({'pid ' + str(pid) if pid is not None else 'no pid'}); taking it over"
                    )
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
                continue
            try:
                with os.fdopen(fd, "w", encoding="ascii") as fh:
                    fh.write(f"{os.getpid()}\n")
            except BaseException:  # e.g. a full disk: leave no empty lock behind
                self.path.unlink(missing_ok=True)
                raise
            self.held = True
            return self
        raise OutputLockedError(
            f"{self.path.parent}: another run took the lock {self.path} at the same time"
        )

    def release(self) -> None:
        if self.held:
            self.held = False
            try:
                if _lock_pid(self.path) == os.getpid():
                    self.path.unlink()
            except OSError:
                pass

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _lock_pid(path: Path) -> int | None:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _running(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user
        return True
    except OSError:
        return False
    return True


def format_ann(new_text: str, replacements: list[Replacement]) -> str:
    """BRAT lines in the OUTPUT's offsets, each entity on its replacement (see
    meddocan_deid.brat)."""
    return format_output_ann(new_text, replacements)


def write_report(
    output: Path,
    stem: str,
    new_text: str,
    replacements: list[Replacement],
    *,
    docx: tuple[Path, str] | None = None,
) -> None:
    """The `.ann` then the `.txt` of a report. docx: (the source `.docx`, the digest of its
    bytes when it was read): its de-identified `.docx` is written first.
    Raises OSError when the source cannot be rewritten (e.g. it changed since it was read)."""
    txt, ann = output_paths(output, stem)
    if txt.exists():  # --overwrite: the old .txt goes first, so a kill never pairs old and new
        txt.unlink()
    if docx is not None:
        atomic_write(txt.with_suffix(".docx"), _docx_bytes(docx, new_text, replacements))
    atomic_write(ann, format_ann(new_text, replacements))
    atomic_write(txt, new_text)


def _docx_bytes(docx: tuple[Path, str], new_text: str, replacements: list[Replacement]) -> bytes:
    source, digest = docx
    data = Path(source).read_bytes()
    try:
        if (
            hashlib.sha256(data).hexdigest() != digest
        ):  # the same bytes give the same extracted text
            raise DocumentError("the .docx changed while it was being de-identified; rerun it")
        write_document = registry.get("docx").write_document
        if write_document is None:
            raise DocumentError("no writer of .docx documents")
        return write_document(data, new_text, replacements)
    except DocumentError as err:  # the runner reports an OSError as a failed report, by name
        raise OSError(errno.EINVAL, str(err)) from None


def check_private_dir(
    private_dir: Path, output: Path, input_path: Path | None = None, what: str = "--private-dir"
) -> None:
    """Refuse a folder for PHI (original annotations, review pages) that is the shared
    OUTPUT or inside it, or that is inside the INPUT folder (its files would be read
    as input by the next run)."""
    priv = Path(private_dir).resolve()
    out = Path(output).resolve()
    if priv == out or out in priv.parents:
        raise InputError(
            f"{private_dir}: {what} must not be the output folder or inside it "
            f"(it holds PHI; the output is meant to be shared)"
        )
    if input_path is not None:
        inp = Path(input_path).resolve()
        if inp.is_dir() and (priv == inp or inp in priv.parents):
            raise InputError(f"{private_dir}: {what} must not be inside the input folder")
    if priv.exists() and not priv.is_dir():
        raise InputError(f"{private_dir}: {what} exists and is not a folder")


def write_private(
    private_dir: Path, stem: str, original: str, replacements: list[Replacement]
) -> None:
    """The original text and its BRAT `.ann` (original offsets, original PHI), as `stem.txt`
    and `stem.ann` in the private folder: a BRAT collection of the originals whose `T<n>`
    are those of the shared `.ann`."""
    txt, ann = output_paths(private_dir, stem)
    atomic_write(ann, format_private_ann(original, replacements))
    atomic_write(txt, original)


def remove_temp_files(output: Path) -> int:
    """Remove temporary files left by a killed run; returns how many."""
    output = Path(output)
    if not output.is_dir():
        return 0
    n = 0
    for p in output.rglob(".*.tmp"):
        if p.is_file() and TMP_FILE.match(p.name):
            p.unlink()
            n += 1
    return n


def write_json(path: Path, data) -> None:
    atomic_write(Path(path), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False) + "\n")
