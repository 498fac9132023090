"""The names every part of the package shares: the default pipeline, the
modes, the MEDDOCAN labels."""

from . import labels

# the pipeline the CLI, Spark, the service and the Python API load when none is named
DEFAULT_MODEL = "es_meddocan_deid"
# the de-identification modes (operators applied to every label a policy leaves to the run)
MODES = ("tag", "mask", "redact", "surrogate")

# the 29 MEDDOCAN labels, in the guidelines' order (their facts:
# meddocan_deid.labels, data/labels.tsv)
LABELS = labels.LABELS
