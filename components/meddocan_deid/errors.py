"""Every exception of the package, in one place, under one base class.

`MeddocanDeidError` is the base: `except MeddocanDeidError` catches any problem this
package reports. Each class keeps its second base (ValueError, OSError, RuntimeError), so
callers that catch those still work. The modules that raise them re-export them under
their old names (e.g. `meddocan_deid.formats.sources.InputError`). Messages name files, lines,
offsets and fields, never report text, keys or tokens.
"""

import errno
from pathlib import Path


class MeddocanDeidError(Exception):
    """Base class of every error this package raises on purpose."""


# -- runs (the engine, meddocan_deid.run, and its command-line and Spark adapters) ------------
class RunError(MeddocanDeidError):
    """A problem that stops a run before it starts; printed as one line."""


class KeygenError(MeddocanDeidError):
    """The key file cannot be made; printed as one line."""


# -- de-identification (deid/) ------------------------------------------------------------
class InputError(MeddocanDeidError, ValueError):
    """An input that cannot be used at all (the run does not start)."""


class OutputLockedError(InputError):
    """Another run is writing into the same output folder."""


class OutputFullError(MeddocanDeidError, OSError):
    """The output device is full (ENOSPC) or the quota is used up (EDQUOT): the run stops;
    the message names the folder, how many reports were written and that a rerun resumes."""

    def __init__(self, output: Path, written: int, err: OSError):
        what = "no space left on the device" if err.errno == errno.ENOSPC else "disk quota exceeded"
        super().__init__(
            err.errno,
            f"{output}: cannot write the output ({what}) after {written} "
            f"report{'s' if written != 1 else ''} written in this run; free some space "
            "and rerun the same command to resume (reports already written are skipped)",
        )
        self.output = Path(output)
        self.written = written

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class FingerprintMismatch(MeddocanDeidError, ValueError):
    """The output folder was made by a run that cannot be mixed with this one."""


class DeidKeyError(MeddocanDeidError, ValueError):
    """A key that cannot be used. The message never holds the key."""


class PolicyError(MeddocanDeidError, ValueError):
    """A policy that cannot be used: the message names the file, the key and what is allowed."""


class KnownPhiError(MeddocanDeidError, ValueError):
    """A `known_phi` value that cannot be used; the message never holds the values."""


class StoredDataError(MeddocanDeidError, ValueError):
    """Stored output and private files that do not belong together (message:
    file and place, never text)."""


# -- BRAT and annotation files --------------------------------------------------------------
class BratError(MeddocanDeidError, ValueError):
    """A BRAT file that cannot be read. The message names the file, never its text."""


class AnnError(MeddocanDeidError, ValueError):
    """An `.ann` that does not line up with its text; the message names the line and the
    offsets, never the text."""


class AnnotationError(MeddocanDeidError, ValueError):
    """A file that cannot be imported or written; the message names the file and the place
    (line, JSON line or task) and never quotes report text."""


# -- pipeline -----------------------------------------------------------------------------
class PatternFileError(MeddocanDeidError, ValueError):
    """A pattern or word-list file that cannot be read; the message names the file and line."""


class GenericModelError(MeddocanDeidError, RuntimeError):
    """The general-Spanish model is missing or cannot be loaded; the
    message says how to install it."""


# -- evaluation and training ----------------------------------------------------------------
class MarkupError(MeddocanDeidError, ValueError):
    """Bad inline markup. The message is ``<file>:<line>:<column>: <problem>``."""


class EvaluationError(MeddocanDeidError, ValueError):
    """Gold and system do not cover the same documents, or an input is malformed."""


class AdaptError(MeddocanDeidError, ValueError):
    """A bad option or input; the message names it and never quotes report text."""


class AugmentError(MeddocanDeidError, ValueError):
    """Bad resource files or input docs (the message names the file and the problem)."""


class CurveError(MeddocanDeidError, ValueError):
    """A bad option or input file; the message names it and never quotes report text."""


# -- service ------------------------------------------------------------------------------
class ServiceSettingsError(MeddocanDeidError, ValueError):
    """A setting the server cannot start with; the message names the file and the problem,
    never a token or a key."""


class ServiceError(MeddocanDeidError):
    """An answer other than 200: status, a short code and a message without request text.
    `loc` names the request field for a 422."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        loc: tuple | None = None,
        headers: dict[str, str] | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.loc = loc
        self.headers = headers  # e.g. Retry-After of a 429
