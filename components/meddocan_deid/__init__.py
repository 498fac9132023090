"""spaCy components for de-identifying Spanish clinical reports (MEDDOCAN).

Factories, the tokenizer, the scorer and the pattern reader are registered through
entry points (see setup.cfg), so `spacy.load("es_meddocan_deid")` needs no import.
"""

import os as _os
import sys as _sys

__version__ = "0.1.0"

# spaCy's NER takes the GIL for each action it checks (Cython exception checks: 117 actions
# per token here), and that costs more while another thread lives: OpenBLAS starts an idle
# worker when numpy loads. Inference needs no threaded BLAS (thinc's gemm is blis, one
# thread), so a process that imports this package before numpy (the CLI, the service, the
# batch tools) starts OpenBLAS with one thread: the NER takes about a quarter less time
# (docs/experiments/2026-11-27-speed.md). A value set by the user is kept.
if "numpy" not in _sys.modules:
    _os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .constants import DEFAULT_MODEL, LABELS, MODES  # noqa: F401

# the Python API (typed; the pipeline is loaded once per process and name); the engine that
# de-identifies, built once and reused, exported here as Presidio exports its engines
from .deid.api import deidentify, load_pipeline  # noqa: E402  (after the names it imports)
from .deid.deidentifier import Deidentifier  # noqa: E402

# the entities' calibrated confidence: registered here too, for an install whose entry points
# predate the component
from .pipeline import ent_confidence as _ent_confidence  # noqa: E402, F401

__all__ = [
    "DEFAULT_MODEL",
    "Deidentifier",
    "LABELS",
    "MODES",
    "__version__",
    "deidentify",
    "load_pipeline",
]
