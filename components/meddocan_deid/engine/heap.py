"""Keep the loaded pipeline out of the garbage collector's full passes.

After the pipeline and its libraries are loaded a process holds about 370,000 objects that
the cyclic collector tracks, and each full collection walks all of them again: about 8% of
a run's time (`scripts/benchmark.py` prints the pipeline with and without). The pipeline
lives as long as the run, so the run moves what is loaded into the collector's permanent
generation (`gc.freeze`, also what keeps forked workers' pages shared) and gives it back
at the end (`gc.unfreeze`), so that a process that then drops the pipeline frees it.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def pin_loaded_objects() -> None:
    """Collect what is garbage now, then take every remaining object out of later collections."""
    gc.collect()
    gc.freeze()


def release_loaded_objects() -> None:
    """Give the pinned objects back to the collector (a dropped pipeline can then be freed)."""
    gc.unfreeze()


@contextmanager
def loaded_objects_pinned() -> Iterator[None]:
    """For the duration of a run over many reports."""
    pin_loaded_objects()
    try:
        yield
    finally:
        release_loaded_objects()
