"""The MEDDOCAN gazetteer, read at run time from a folder (never shipped with the code).

Resolution: an explicit folder, else the environment variable MEDDOCAN_GAZETTEER, else
`../shared/meddocan/gazetteer` relative to the working directory when it exists; else the
surrogates use Faker `es_ES` only and a one-line notice goes to stderr (once per process).
"""
import os
import sys
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

ENV_GAZETTEER = "MEDDOCAN_GAZETTEER"
DEFAULT_GAZETTEER = Path("..") / "shared" / "meddocan" / "gazetteer"

# file-name prefix -> kind
FILES = {
    "Apellidos": "surnames",
    "Direcciones": "streets",
    "Hospitales": "hospitals",
    "Municipios": "towns",
    "Nombres": "first_names",
    "Profesiones": "professions",
    "Territorio": "territories",
}


def fold(text: str) -> str:
    """Case- and accent-insensitive form, for lookups."""
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


class Gazetteer:
    def __init__(self, lists: Dict[str, Tuple[str, ...]], source: Optional[Path]):
        self.lists = {kind: lists.get(kind, ()) for kind in FILES.values()}
        self.source = source
        self.folded: Dict[str, FrozenSet[str]] = {k: frozenset(fold(v) for v in vals) for k, vals in self.lists.items()}

    def get(self, kind: str) -> Tuple[str, ...]:
        return self.lists.get(kind, ())

    def contains(self, kind: str, value: str) -> bool:
        return fold(value) in self.folded.get(kind, frozenset())


def resolve_folder(folder: Optional[Path] = None) -> Optional[Path]:
    if folder is not None:
        return Path(folder)
    env = os.environ.get(ENV_GAZETTEER)
    if env:
        return Path(env)
    if DEFAULT_GAZETTEER.is_dir():
        return DEFAULT_GAZETTEER.resolve()
    return None


@lru_cache(maxsize=8)
def _load(folder: Optional[str]) -> Gazetteer:
    if folder is None:
        print("meddocan-deid: no gazetteer folder found; surrogates use Faker es_ES only", file=sys.stderr)
        return Gazetteer({}, None)
    path = Path(folder)
    if not path.is_dir():
        raise ValueError(f"{path}: gazetteer folder not found")
    lists: Dict[str, Tuple[str, ...]] = {}
    for file in sorted(path.glob("*.txt")):
        kind = FILES.get(file.name.split(" ")[0].split(".")[0])
        if kind is None:
            continue
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            raise ValueError(f"{file}: not valid UTF-8") from None
        # sorted and de-duplicated: the choice made by a seed does not depend on file order
        lists[kind] = tuple(sorted({line.strip() for line in lines if line.strip()}))
    return Gazetteer(lists, path)


def load_gazetteer(folder: Optional[Path] = None) -> Gazetteer:
    resolved = resolve_folder(folder)
    return _load(None if resolved is None else str(Path(resolved).resolve()))
