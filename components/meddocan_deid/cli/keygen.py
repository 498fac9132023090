"""`meddocan-deid keygen FILE`: make a surrogate key file (readable by its owner only)."""

import os
from pathlib import Path

import typer

from ..deid.keys import random_key
from ..errors import KeygenError

KEYGEN_EPILOG = """\b
Example:
  meddocan-deid keygen deid.key
  meddocan-deid deidentify in/ out/ --mode surrogate --key-file deid.key
"""


def make_private_folder(folder: Path) -> None:
    """Create `folder` and the missing folders above it, each mode 0700 whatever the umask
    (only the owner may list or enter them); KeygenError when that fails."""
    missing = []
    for parent in (folder, *folder.parents):
        if parent.exists():
            break
        missing.append(parent)
    try:
        for made in reversed(missing):
            os.mkdir(made, 0o700)
            os.chmod(made, 0o700)
    except FileExistsError:
        pass
    except OSError as err:
        raise KeygenError(
            f"{folder}: cannot create the key's folder ({err.strerror or type(err).__name__})"
        ) from None
    if not folder.is_dir():
        raise KeygenError(f"{folder}: not a folder")


def write_key_file(path: Path) -> None:
    """Write a fresh random key (64 hex characters and a newline) to `path`, mode 0600; a
    missing folder is created mode 0700. Never replaces an existing file. The key is hex text
    so that the same value also works in the environment variable MEDDOCAN_DEID_KEY."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        raise KeygenError(
            f"{path}: already exists; not overwritten (a lost key cannot be remade: "
            "move it away first if you really mean to replace it)"
        )
    if not path.parent.is_dir():
        make_private_folder(path.parent)
    try:
        # O_EXCL: refused if the file appears meanwhile; 0600 from creation, never readable by
        # others
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeygenError(f"{path}: already exists; not overwritten") from None
    except OSError as err:
        raise KeygenError(f"{path}: cannot create ({err.strerror or type(err).__name__})") from None
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, (random_key().hex() + "\n").encode("ascii"))
    finally:
        os.close(fd)


def keygen(
    file: Path = typer.Argument(..., metavar="FILE", help="Key file to create (must not exist)."),
):
    """Write a new random surrogate key to FILE (mode 0600).

    The key decides every surrogate: the same key gives the same surrogates, so keep
    the file secret and backed up. Use it with --key-file FILE, or put its content
    in the environment variable MEDDOCAN_DEID_KEY.
    """
    try:
        write_key_file(file)
    except KeygenError as err:
        typer.echo(f"meddocan-deid: {err}", err=True)
        raise typer.Exit(2) from None
    typer.echo(
        f"wrote a new key to {file} (mode 0600; keep it secret and backed up)\n"
        f"use it with: meddocan-deid deidentify INPUT OUTPUT --mode surrogate --key-file {file}"
    )
