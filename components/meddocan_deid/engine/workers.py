"""The results of a run's records, in this process or in forked worker processes."""
from typing import Dict, Iterator, List

from ..errors import RunError

# state inherited by forked workers (never pickled: the key stays in memory)
_STATE: Dict[str, object] = {}


def _work(chunk):
    from ..deid.batch import deidentify_records

    return list(deidentify_records(_STATE["nlp"], chunk, _STATE["mode"], _STATE["key"],
                                   batch_size=max(1, len(chunk)), options=_STATE["options"],
                                   time_limit=_STATE["time_limit"]))


def chunks(records: Iterator, size: int) -> Iterator[List]:
    chunk = []
    for r in records:
        chunk.append(r)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def results(nlp, records, mode, key, options, batch_size: int, n_process: int, time_limit=None):
    """One `RecordResult` per record, in order; `n_process` above 1 forks workers that
    inherit the pipeline and the key. `time_limit`: seconds a report may take (None: none)."""
    from ..deid.batch import deidentify_records

    if n_process <= 1:
        yield from deidentify_records(nlp, records, mode, key, batch_size=batch_size, options=options,
                                      time_limit=time_limit)
        return
    import multiprocessing as mp

    try:
        ctx = mp.get_context("fork")
    except ValueError:
        raise RunError("--n-process above 1 needs the 'fork' start method (Linux)") from None
    _STATE.update(nlp=nlp, mode=mode, key=key, options=options, time_limit=time_limit)
    try:
        with ctx.Pool(n_process) as pool:
            for chunk_results in pool.imap(_work, chunks(records, batch_size), chunksize=1):
                yield from chunk_results
    finally:
        _STATE.clear()
