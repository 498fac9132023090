"""Which component of a pipeline raised: the failure of a report names it (never the text).

`component_of(nlp, err)` walks the exception's traceback from the innermost frame out and
returns the name of the first pipeline component whose code it finds there: a method of the
component object (`self` of the frame) or the component's own function. Components compiled
to C (spaCy's trained ones) leave no Python frame: None then, and the reason names the
exception's class only."""

from types import TracebackType


def component_of(nlp, err: BaseException) -> str | None:
    components = getattr(nlp, "components", None)
    if not components:
        return None
    by_object = {id(proc): name for name, proc in components}
    by_code = {
        id(code): name
        for name, proc in components
        if (code := getattr(proc, "__code__", None)) is not None
    }
    frames = []
    tb: TracebackType | None = err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):  # the innermost first: a component calling another
        name = by_code.get(id(frame.f_code))
        if name is None:
            owner = frame.f_locals.get("self")
            name = by_object.get(id(owner)) if owner is not None else None
        if name is not None:
            return name
    return None


def pipeline_error(nlp, err: BaseException) -> str:
    """The reason a report failed in the pipeline: the component by name when one is found,
    and the exception's class (its message may quote the text)."""
    name = component_of(nlp, err)
    where = f"the pipeline component {name!r}" if name else "the pipeline"
    return f"error in {where} ({type(err).__name__})"
