"""The MEDDOCAN gazetteer: lists of first names, surnames, streets... for the surrogates.

The code never ships the lists. A pipeline built with `configs/pipeline*.cfg` carries them
in its vocab (a spaCy Lookups table written at `[initialize]` from `paths.gazetteer`, saved
and packaged with the pipeline). Resolution for a Doc: the table of its vocab ("pipeline"),
else an explicit folder, else the environment variable MEDDOCAN_GAZETTEER, else
`../shared/meddocan/gazetteer` relative to the working directory when it exists; else the
surrogates use Faker `es_ES` only and a warning is logged (once per process).

The lists are the MEDDOCAN-Gazetteer (CC BY 4.0, Plan TL / the MEDDOCAN task organisers);
the table keeps that attribution under its `__meta__` entry.
"""

import logging
import os
import sys
from functools import lru_cache
from pathlib import Path

from spacy.util import registry

from ..lexicon import lookup_key
from ..pipeline.patterns import GAZETTEER_FILES

logger = logging.getLogger("meddocan_deid.deid")

ENV_GAZETTEER = "MEDDOCAN_GAZETTEER"
DEFAULT_GAZETTEER = Path("..") / "shared" / "meddocan" / "gazetteer"
TABLE = "meddocan_gazetteer"  # the Lookups table in `nlp.vocab.lookups`
PIPELINE = "pipeline"
FAKER_ONLY = "faker-only"
ATTRIBUTION = {
    "name": "MEDDOCAN-Gazetteer",
    "license": "CC BY 4.0",
    "attribution": "Plan TL (Plan de Impulso de las Tecnologias del Lenguaje) and the MEDDOCAN "
    "task organisers",
}

# file-name prefix -> kind (the one map of the gazetteer's files is in pipeline/patterns.py)
FILES = {prefix: kind for prefix, (_label, kind) in GAZETTEER_FILES.items()}


class Gazetteer:
    """source: the folder read, "pipeline" (the vocab's table) or None (Faker only)."""

    def __init__(self, lists: dict[str, tuple[str, ...]], source: Path | str | None):
        self.lists = {kind: lists.get(kind, ()) for kind in FILES.values()}
        self.source = source
        self.folded: dict[str, frozenset[str]] = {
            k: frozenset(lookup_key(v) for v in vals) for k, vals in self.lists.items()
        }

    def get(self, kind: str) -> tuple[str, ...]:
        return self.lists.get(kind, ())

    def contains(self, kind: str, value: str) -> bool:
        return lookup_key(value) in self.folded.get(kind, frozenset())

    @property
    def source_name(self) -> str:
        """What a run report records: "pipeline", the folder's path, or "faker-only"."""
        if self.source is None or not any(self.lists.values()):
            return FAKER_ONLY
        return str(self.source)


def resolve_folder(folder: Path | None = None) -> Path | None:
    if folder is not None:
        return Path(folder)
    env = os.environ.get(ENV_GAZETTEER)
    if env:
        return Path(env)
    if DEFAULT_GAZETTEER.is_dir():
        return DEFAULT_GAZETTEER.resolve()
    return None


def read_lists(folder: Path) -> dict[str, tuple[str, ...]]:
    """The lists of a gazetteer folder, by kind; a clear error naming the folder or file."""
    path = Path(folder)
    if not path.is_dir():
        raise ValueError(f"{path}: gazetteer folder not found")
    lists: dict[str, tuple[str, ...]] = {}
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
    return lists


@lru_cache(maxsize=8)
def _load(folder: str | None) -> Gazetteer:
    if folder is None:
        print(
            "meddocan-deid: no gazetteer folder found; surrogates use Faker es_ES only",
            file=sys.stderr,
        )
        logger.warning(
            "no gazetteer in the pipeline nor as a folder: surrogates use Faker es_ES only"
        )
        return Gazetteer({}, None)
    return Gazetteer(read_lists(Path(folder)), Path(folder))


def load_gazetteer(folder: Path | None = None) -> Gazetteer:
    resolved = resolve_folder(folder)
    return _load(None if resolved is None else str(Path(resolved).resolve()))


def store_in_vocab(vocab, folder: Path) -> dict[str, int]:
    """Write the lists of `folder` into `vocab.lookups` (table `meddocan_gazetteer`, one
    entry per kind, plus `__meta__` with the attribution), replacing an older table. The
    table is saved with the vocab (`nlp.to_disk`, `spacy package`). Returns kind -> size."""
    lists = read_lists(folder)
    if vocab.lookups.has_table(TABLE):
        vocab.lookups.remove_table(TABLE)
    table = vocab.lookups.add_table(TABLE)
    for kind in FILES.values():
        table[kind] = list(lists.get(kind, ()))
    table["__meta__"] = dict(ATTRIBUTION)
    _FROM_VOCAB.clear()
    return {kind: len(values) for kind, values in lists.items()}


_FROM_VOCAB: dict[int, tuple[object, Gazetteer]] = {}


def from_vocab(vocab) -> Gazetteer | None:
    """The gazetteer stored in `vocab.lookups`, or None when the pipeline carries none."""
    lookups = getattr(vocab, "lookups", None)
    if lookups is None or not lookups.has_table(TABLE):
        return None
    table = lookups.get_table(TABLE)
    cached = _FROM_VOCAB.get(id(table))
    if cached is not None and cached[0] is table:
        return cached[1]
    lists = {kind: tuple(table.get(kind, ())) for kind in FILES.values()}
    if not any(lists.values()):
        return None
    gaz = Gazetteer(lists, PIPELINE)
    if len(_FROM_VOCAB) > 8:
        _FROM_VOCAB.clear()
    _FROM_VOCAB[id(table)] = (table, gaz)  # the table is kept alive: its id is not reused
    return gaz


def resolve_gazetteer(vocab=None, folder: Path | None = None) -> Gazetteer:
    """What the surrogates draw from: a folder the user names (`folder`, else the
    environment variable MEDDOCAN_GAZETTEER) wins; else the pipeline's own table when
    `vocab` has one; else `load_gazetteer()` (../shared/meddocan/gazetteer, else Faker only)."""
    if folder is not None or os.environ.get(ENV_GAZETTEER):
        return load_gazetteer(folder)
    if vocab is not None:
        gaz = from_vocab(vocab)
        if gaz is not None:
            return gaz
    return load_gazetteer(folder)


def gazetteer_source(vocab=None, folder: Path | None = None) -> str:
    """ "pipeline", the folder's path, or "faker-only": what surrogates of a run draw from."""
    return resolve_gazetteer(vocab, folder).source_name


@registry.callbacks("meddocan_deid.store_gazetteer.v1")
def make_store_gazetteer(path: Path | None = None):
    """`[initialize.after_init]`: store the MEDDOCAN gazetteer lists of `path` in
    `nlp.vocab.lookups`, so that the saved (and packaged) pipeline carries them for the
    surrogates. A null path stores nothing; a missing folder stores nothing and warns."""

    def store_gazetteer(nlp):
        if path is None or not str(path):
            return nlp
        folder = Path(path)
        if not folder.is_dir():
            logger.warning(
                "%s: gazetteer folder not found; the pipeline carries no gazetteer", folder
            )
            return nlp
        sizes = store_in_vocab(nlp.vocab, folder)
        logger.info("stored the gazetteer of %s in the pipeline's vocab: %s", folder, sizes)
        return nlp

    return store_gazetteer
