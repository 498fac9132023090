"""De-identification of texts processed by the MEDDOCAN pipeline: the `Deidentifier` (the one
path from a text to its de-identified text), the `tag`, `mask`, `redact` and `surrogate`
operators, and the file I/O of the CLI.

Detection stays in the spaCy pipeline; this package only rewrites texts from `doc.ents`.
"""

from .api import deidentify
from .deidentifier import Deidentifier, deidentify_records
from .gazetteer import gazetteer_source, resolve_gazetteer
from .keys import DeidKeyError, load_key, random_key
from .operators import DeidResult, Replacement, apply_operator
from .options import MODES, DeidOptions, read_tag_table
from .policy import Policy, PolicyError, load_policy
from .records import Record, RecordResult

__all__ = [
    "MODES",
    "DeidKeyError",
    "Deidentifier",
    "DeidOptions",
    "DeidResult",
    "Record",
    "RecordResult",
    "Replacement",
    "apply_operator",
    "deidentify",
    "deidentify_records",
    "gazetteer_source",
    "load_key",
    "random_key",
    "read_tag_table",
    "resolve_gazetteer",
    "Policy",
    "PolicyError",
    "load_policy",
]
