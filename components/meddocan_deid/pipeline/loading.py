"""A pipeline loaded for a run, a service worker or a Spark executor: `load_model` (at a
privacy level; a model that cannot be loaded is named in one line, RunError) and the loaded
objects kept out of the garbage collector's full passes while it is used.

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
from typing import cast

from spacy.language import Language

from ..errors import GenericModelError, RunError
from .privacy import Privacy, load_with_privacy


def load_model(name: str, privacy: str | None = None) -> Language:
    """The pipeline `name` at the privacy level `privacy`; RunError (one line naming the model)
    when it cannot be loaded."""
    try:
        nlp = load_with_privacy(name, privacy)
        if privacy == "high":  # a missing general-Spanish model fails now, not on every report
            # load_with_privacy has checked the component is meddocan_privacy
            cast(Privacy, nlp.get_pipe("privacy")).generic.model  # noqa: B018
        return nlp
    except GenericModelError as err:
        raise RunError(str(err)) from None
    except Exception as err:  # noqa: BLE001
        first = str(err).strip().splitlines()[0][:200] if str(err).strip() else ""
        raise RunError(
            f"cannot load the model {name!r} ({type(err).__name__}{': ' + first if first else ''})"
        ) from None


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
