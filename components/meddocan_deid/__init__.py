"""spaCy components for de-identifying Spanish clinical reports (MEDDOCAN).

Factories, the tokenizer, the scorer and the pattern reader are registered through
entry points (see setup.cfg), so `spacy.load("es_meddocan_deid")` needs no import.
"""
__version__ = "0.1.0"

from .constants import DEFAULT_MODEL, LABELS, MODES  # noqa: F401

# the Python API (typed; the pipeline is loaded once per process and name)
from .deid.api import deidentify, load_pipeline  # noqa: E402  (after the names it imports)
