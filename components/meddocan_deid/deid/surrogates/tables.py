"""The surrogates' word lists and tables: tab-separated files in `data/`, shipped with the
package (setup.cfg package_data), read once per process. Lines starting with `#` are comments."""

from functools import cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


@cache
def rows(name: str) -> tuple[tuple[str, ...], ...]:
    """The rows of `data/<name>`, each a tuple of its tab-separated fields."""
    path = DATA / name
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        out.append(tuple(field.strip() for field in line.split("\t")))
    return tuple(out)


@cache
def words(list_name: str) -> tuple[str, ...]:
    """The values of one list of `data/words.tsv` (saints, place
    words, trades...), in file order."""
    return tuple(value for name, value, *_ in rows("words.tsv") if name == list_name)


@cache
def word_lists() -> dict[str, tuple[str, ...]]:
    lists: dict[str, list] = {}
    for name, value, *_ in rows("words.tsv"):
        lists.setdefault(name, []).append(value)
    return {k: tuple(v) for k, v in lists.items()}
