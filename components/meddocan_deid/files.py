"""File helpers shared by the evaluation reports and the de-identification output."""

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, content) -> None:
    """Write `content` (str as UTF-8, or bytes) to a temporary file in the same folder, then
    rename: never a half-written file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if isinstance(content, bytes):
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
