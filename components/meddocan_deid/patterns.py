"""Pattern data loader, registered as `meddocan_deid.read_patterns.v1` (spacy_misc).

Used in `[initialize]` blocks so that patterns live in JSONL files and are saved
with the pipeline; errors name the file and line, never pattern contents.
"""
from pathlib import Path
from typing import List

import srsly
from spacy.util import registry


class PatternFileError(ValueError):
    pass


def load_patterns(path: Path, required=("pattern",)) -> List[dict]:
    path = Path(path)
    if not path.exists():
        raise PatternFileError(f"{path}: pattern file not found")
    patterns = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                entry = srsly.json_loads(line)
            except ValueError:
                raise PatternFileError(f"{path}:{lineno}: not valid JSON") from None
            if not isinstance(entry, dict):
                raise PatternFileError(f"{path}:{lineno}: expected a JSON object")
            missing = [k for k in required if k not in entry]
            if missing:
                raise PatternFileError(f"{path}:{lineno}: missing key(s) {missing}")
            patterns.append(entry)
    return patterns


@registry.misc("meddocan_deid.read_patterns.v1")
def read_patterns(path: Path) -> List[dict]:
    return load_patterns(path)
