"""Run a command from the repository root.

The experiment commands that train or assemble go through it: the configs name their
pattern and gazetteer files relative to the root (`configs/patterns/...`,
`assets/meddocan/gazetteer`), so their paths are root-relative and their outputs go under
`experiments/`.

    python in_root.py python -m spacy assemble configs/pipeline.cfg experiments/training/x ...

A leading `python` is this interpreter, as weasel does for the commands it runs itself.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv) -> int:
    if not argv:
        print("usage: python in_root.py COMMAND [ARG ...]", file=sys.stderr)
        return 2
    if argv[0] in ("python", "python3"):
        argv = [sys.executable, *argv[1:]]
    return subprocess.call(argv, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
