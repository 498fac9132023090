"""Moved to `meddocan_deid.engine.record` (the run report's options, the progress bar, the
failure lines of a run); re-exported here for old callers."""
from ..engine.record import MAX_FAILURE_LINES, Progress, failure_lines, failure_reason, plain_options  # noqa: F401

__all__ = ["MAX_FAILURE_LINES", "Progress", "failure_lines", "failure_reason", "plain_options"]
