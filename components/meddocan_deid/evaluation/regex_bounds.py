"""Every regular expression the de-identification runs, collected from the code and the data,
timed on adversarial inputs (a backtracking pattern shows as a time far above the others).

`collect_patterns(nlp)`: the compiled patterns held by the package's modules (module values,
class attributes, containers) and by the pipeline's components and tokenizer, and the token
`REGEX` patterns of the pattern files (spaCy compiles those inside its Matcher). Each is
named by where it was found. `adversarial_inputs(pattern)`: inputs of `size` characters
made to make a pattern try hard at every position (long runs of the characters it matches,
cut by the ones it looks for next). `time_all` gives the worst CPU time of each pattern,
scanning the input whole (finditer), or, for a pattern that starts with a run of blanks (the
code matches those where something else ends, `match(text, pos)`), matching at its start.
`growth` tells a slow linear pattern from a backtracking one on any machine: the time of its
worst input at full size over the time at a quarter of it (about 4 when linear, 16 or more
when it backtracks), both measured in one run.
"""

import importlib
import json
import pkgutil
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import country, country_data

PACKAGE = "meddocan_deid"
MAX_DEPTH = 4
SIZE = 100_000
INLINE_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")
# runs that many patterns over-consume: letters, digits, spaces, punctuation and their mixes
BASE_UNITS = (
    "a",
    "A",
    "á",
    "1",
    " ",
    "\n",
    ".",
    "-",
    "/",
    "a ",
    "1 ",
    "1.",
    "1-",
    "1/",
    "a.",
    "A.",
    "a-",
    "Aa ",
    "a1",
    "1a",
    "12 ",
    "de ",
    "C/ ",
    "a@",
    ":",
    "+",
    "(",
)
# modules that load training data or optional extras at import: no pattern of a run is there
SKIP_MODULES = ("meddocan_deid.training", "meddocan_deid.spark", "meddocan_deid.__main__")


@dataclass(frozen=True)
class Found:
    where: str
    pattern: re.Pattern


def _walk(obj: Any, where: str, depth: int, seen: set[int]) -> Iterator[Found]:
    if id(obj) in seen or depth > MAX_DEPTH:
        return
    seen.add(id(obj))
    if isinstance(obj, re.Pattern):
        yield Found(where, obj)
        return
    if isinstance(obj, (str, bytes, int, float, bool)) or obj is None:
        return
    if isinstance(obj, dict):
        for k, v in list(obj.items()):
            yield from _walk(v, f"{where}[{k!r}]" if len(repr(k)) < 40 else where, depth + 1, seen)
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        for i, v in enumerate(list(obj)):
            yield from _walk(v, f"{where}[{i}]", depth + 1, seen)
        return
    bound = getattr(obj, "__self__", None)  # a pattern's bound method (the tokenizer's search)
    if isinstance(bound, re.Pattern):
        yield Found(where, bound)
        return
    owner = getattr(type(obj), "__module__", "") or ""
    if isinstance(obj, type):
        owner = obj.__module__ or ""
    if not owner.startswith(PACKAGE):
        return
    attrs = vars(obj) if hasattr(obj, "__dict__") else {}
    for name in getattr(type(obj), "__slots__", ()):
        if hasattr(obj, name):
            attrs = {**attrs, name: getattr(obj, name)}
    for name, value in list(attrs.items()):
        if not name.startswith("__"):
            yield from _walk(value, f"{where}.{name}", depth + 1, seen)


def module_patterns() -> Iterator[Found]:
    """The compiled patterns of every module of the package (its values, classes and
    containers)."""
    package = importlib.import_module(PACKAGE)
    for info in pkgutil.walk_packages(package.__path__, PACKAGE + "."):
        if info.name.startswith(SKIP_MODULES):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra that is not installed
            continue
        seen: set[int] = set()
        for name, value in list(vars(module).items()):
            if name.startswith("__"):
                continue
            if isinstance(value, type) and value.__module__ != info.name:
                continue
            yield from _walk(value, f"{info.name}.{name}", 0, seen)


def data_patterns() -> Iterator[Found]:
    """Patterns compiled from data tables when first used (country detection's cues, the
    centre heads, the institutions' and reference hospitals' names): no module holds them at
    import."""
    for i, cue in enumerate(country_data.country_cues()):
        yield Found(f"country_cues.tsv cue {i + 1} ({cue.country})", cue.pattern)
    for i, head in enumerate(country_data.centre_heads()):
        yield Found(f"centre_heads.tsv head {i + 1}", head.pattern)
    yield Found("meddocan_deid.country._institution_pattern", country._institution_pattern())
    yield Found("meddocan_deid.country._hospital_pattern", country._hospital_pattern())


def pipeline_patterns(nlp) -> Iterator[Found]:
    """The compiled patterns held by the pipeline's components and its tokenizer."""
    seen: set[int] = set()
    for name, component in nlp.components:
        for attr, value in list(getattr(component, "__dict__", {}).items()):
            yield from _walk(value, f"pipe {name}.{attr}", 1, seen)
    tokenizer = nlp.tokenizer
    for attr in ("prefix_search", "suffix_search", "infix_finditer", "token_match", "url_match"):
        value = getattr(tokenizer, attr, None)
        if value is not None:
            yield from _walk(value, f"tokenizer.{attr}", 0, seen)


def token_regexes(folders: list[Path]) -> Iterator[Found]:
    """The `REGEX` values of the token patterns in the JSON(L) files of `folders`."""
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.json*")):
            text = path.read_text(encoding="utf-8")
            rows = (
                [json.loads(line) for line in text.splitlines() if line.strip()]
                if path.suffix == ".jsonl"
                else [json.loads(text)]
            )
            for n, row in enumerate(rows, start=1):
                for value in _regex_values(row):
                    yield Found(f"{path.name}:{n} REGEX", re.compile(value))


def _regex_values(obj: Any) -> Iterator[str]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "REGEX" and isinstance(v, str):
                yield v
            elif k == "REGEX" and isinstance(v, dict):  # {"REGEX": {"NOT_IN": ...}} forms
                yield from (x for x in v.values() if isinstance(x, str))
            else:
                yield from _regex_values(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _regex_values(v)


def collect_patterns(nlp, folders: list[Path]) -> list[Found]:
    """Every distinct pattern (by source and flags), with the first place it was found."""
    out: dict[tuple, Found] = {}
    for found in [
        *pipeline_patterns(nlp),
        *module_patterns(),
        *data_patterns(),
        *token_regexes(folders),
    ]:
        key = (found.pattern.pattern, found.pattern.flags)
        out.setdefault(key, found)
    return list(out.values())


def adversarial_inputs(pattern: re.Pattern, size: int = SIZE) -> list[str]:
    """Inputs of `size` characters: long runs of each base unit, and of the pattern's own
    literal characters, each run cut at its end by a character the pattern may look for next."""
    source = pattern.pattern if isinstance(pattern.pattern, str) else ""
    literals = "".join(sorted({c for c in source if c.isalnum() or c in " .,:;/-@()+'"}))
    units = [*BASE_UNITS, *([literals] if literals else [])]
    out = []
    for unit in units:
        body = (unit * (size // len(unit) + 1))[: size - 1]
        out.append(body + "!")
    # a key word of the pattern, then a long run of blanks or digits (`CMP` and 40,000 spaces:
    # two blank runs in a row after a key backtrack only there)
    for word in _key_words(source):
        for unit in (" ", "1"):
            out.append((word + unit * size)[: size - 1] + "!")
    return out


def _key_words(source: str, most: int = 3) -> list[str]:
    """The first `most` distinct words of two or more letters written literally in a pattern."""
    plain = re.sub(r"\\.|\[[^\]]*\]|\(\?[^:)]*[:)]?|\{[^}]*\}", " ", source)
    words = list(dict.fromkeys(re.findall(r"[^\W\d_]{2,}", plain)))
    return words[:most]


def is_continuation(pattern: re.Pattern) -> bool:
    """A pattern that starts with a run of blanks (`\\s+ de ...`, `[ \\t]*`): the code matches
    it where something else ends (`match(text, pos)`), never scans a text with it."""
    source = pattern.pattern if isinstance(pattern.pattern, str) else ""
    source = INLINE_FLAGS.sub("", source, count=1)
    return source.startswith(("\\s", "[ \\t]", "[ \t]", "(?:\\s", "(?:[ \\t]"))


def run_once(pattern: re.Pattern, text: str) -> None:
    """Use the pattern as the code does: matched at the start (a continuation), else scanned
    whole."""
    if is_continuation(pattern):
        pattern.match(text)
        return
    for _ in pattern.finditer(text):
        pass


def time_pattern(pattern: re.Pattern, inputs: list[str]) -> tuple[float, int]:
    """The worst CPU time (seconds) of using the pattern on each input (`run_once`), and which
    input it was (CPU time: the figure does not grow with the machine's load)."""
    worst, which = 0.0, 0
    for i, text in enumerate(inputs):
        start = time.process_time()
        run_once(pattern, text)
        took = time.process_time() - start
        if took > worst:
            worst, which = took, i
    return worst, which


def _worker(jobs, results) -> None:
    while True:
        job = jobs.get()
        if job is None:
            return
        i, source, flags, size, chosen = job
        pattern = re.compile(source, flags)
        inputs = adversarial_inputs(pattern, size)
        picked = [inputs[k] for k in chosen] if chosen is not None else inputs
        seconds, which = time_pattern(pattern, picked)
        results.put((i, seconds, chosen[which] if chosen is not None else which))


class Timer:
    """Patterns timed in a worker process: one that runs past `wall_limit` seconds of wall
    time is stopped (the worker is replaced) and gets `inf`."""

    def __init__(self, wall_limit: float):
        import multiprocessing as mp

        self.ctx = mp.get_context("fork")
        self.wall_limit = wall_limit
        self.worker: Any = None

    def _start(self) -> None:
        self.jobs, self.results = self.ctx.Queue(), self.ctx.Queue()
        self.worker = self.ctx.Process(target=_worker, args=(self.jobs, self.results), daemon=True)
        self.worker.start()

    def time(self, pattern: re.Pattern, size: int, chosen: list[int] | None) -> tuple[float, int]:
        import queue

        if self.worker is None:
            self._start()
        self.jobs.put((0, pattern.pattern, pattern.flags, size, chosen))
        try:
            _, seconds, which = self.results.get(timeout=self.wall_limit)
        except queue.Empty:
            self.worker.kill()
            self.worker.join()
            self.worker = None
            return float("inf"), -1
        return seconds, which

    def close(self) -> None:
        if self.worker is not None:
            self.jobs.put(None)
            self.worker.join()
            self.worker = None


def time_all(
    found: list[Found],
    size: int = SIZE,
    probe: int = 1_000,
    keep: int = 1,
    wall_limit: float = 120.0,
    progress=None,
) -> list[tuple[float, str, int]]:
    """(CPU seconds, where, input index) of each pattern on its worst input of `size`
    characters, worst first. Each pattern scans every adversarial input of `probe`
    characters first; its `keep` slowest are then scanned at `size` (a backtracking pattern is
    slow on the same input at any size)."""
    timer = Timer(wall_limit)
    out: list[tuple[float, str, int]] = []
    try:
        for n, f in enumerate(found, start=1):
            small = adversarial_inputs(f.pattern, probe)
            times = []
            for k, text in enumerate(small):
                start = time.process_time()
                run_once(f.pattern, text)
                times.append((time.process_time() - start, k))
            chosen = [k for _, k in sorted(times, reverse=True)[:keep]]
            seconds, which = timer.time(f.pattern, size, chosen)
            out.append((seconds, f.where, which))
            if progress is not None:
                progress(n, len(found), seconds, f.where)
    finally:
        timer.close()
    return sorted(out, key=lambda r: -r[0])


def growth(pattern: re.Pattern, which: int, size: int = SIZE, repeats: int = 3) -> float:
    """How the pattern's CPU time on its adversarial input `which` grows from `size // 4`
    characters to `size`: about 4 for a linear pattern, 16 or more for one that backtracks.
    The fastest of `repeats` runs at each size (CPU time still grows on a busy machine, through
    shared caches: the fastest is the least disturbed); run in this process, so meant for
    patterns `time_all` saw finish within its wall limit."""

    def fastest(n: int) -> float:
        text = adversarial_inputs(pattern, n)[which]
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            run_once(pattern, text)
            best = min(best, time.process_time() - start)
        return best

    return fastest(size) / max(fastest(size // 4), 1e-6)
