"""One serializer for the components whose state is lists (patterns, word lists).

A component lists its state in `state_files` (state key -> file name; `.jsonl` holds JSON
objects, `.txt` one string a line), returns it from `get_state()` and takes it back in
`set_state()`, which validates and compiles; `SerializedState` gives it spaCy's
`to_disk`/`from_disk` (through `spacy.util.to_disk`/`from_disk`, so `exclude` works as for
spaCy's own components) and `to_bytes`/`from_bytes` (a msgpack dict under the same keys).
A file absent on disk (a pipeline saved before the state had it) leaves its key out of the
state handed to `set_state`.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import srsly
from spacy import util


def _write(path: Path, values: list[Any]) -> None:
    if path.suffix == ".jsonl":
        srsly.write_jsonl(path, values)
    else:
        path.write_text("".join(f"{v}\n" for v in values), encoding="utf-8")


def _read(path: Path) -> list[Any]:
    if path.suffix == ".jsonl":
        return list(srsly.read_jsonl(path))
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line]


class SerializedState:
    """Mixin: `to_disk`, `from_disk`, `to_bytes`, `from_bytes` from `state_files`,
    `get_state()` and `set_state(state)` (see the module docstring)."""

    state_files: dict[str, str] = {}

    def get_state(self) -> dict[str, list[Any]]:
        raise NotImplementedError

    def set_state(self, state: dict[str, list[Any]]) -> None:
        raise NotImplementedError

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        state = self.get_state()
        return srsly.msgpack_dumps(
            {key: state[key] for key in self.state_files if key not in exclude}
        )

    def from_bytes(self, data: bytes, *, exclude=tuple()):
        msg = srsly.msgpack_loads(data)
        self.set_state(
            {key: msg[key] for key in self.state_files if key in msg and key not in exclude}
        )
        return self

    def to_disk(self, path, *, exclude=tuple()) -> None:
        path = util.ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        state = self.get_state()

        def writer(values: list[Any]) -> Callable[[Path], None]:
            def write(p: Path) -> None:
                _write(p, values)

            return write

        util.to_disk(
            path, {file: writer(state[key]) for key, file in self.state_files.items()}, exclude
        )

    def from_disk(self, path, *, exclude=tuple()):
        state: dict[str, list[Any]] = {}

        def reader(key: str):
            def read(p: Path) -> None:
                if p.exists():
                    state[key] = _read(p)

            return read

        util.from_disk(path, {file: reader(key) for key, file in self.state_files.items()}, exclude)
        self.set_state(state)
        return self


class PatternState(SerializedState):
    """Mixin for a component whose state is its pattern list (`patterns.jsonl`): loading checks
    the patterns with `check_patterns` (the component module's validator) and compiles them."""

    state_files = {"patterns": "patterns.jsonl"}
    check_patterns: Callable[[list[dict]], list[dict]]
    _compile: Callable[[], None]  # builds the component's matchers from `self.patterns`

    def get_state(self) -> dict[str, list[Any]]:
        return {"patterns": self.patterns}

    def set_state(self, state: dict[str, list[Any]]) -> None:
        self.patterns = self.check_patterns(list(state.get("patterns", [])))
        self._compile()
