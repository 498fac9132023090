"""The de-identification engine: one run of the pipeline over a file, a folder or a JSONL
file into an output folder, whatever starts it.

`RunConfig` (config.py) is what a run is asked to do; `Run` (runner.py) does it, from any
source of meddocan_deid/formats (reports, documents, a folder, JSONL, a table): checks the
paths, loads the model, takes the output folder's lock, checks the fingerprint (resume or
refuse), writes each report, the private copies and the review site, and the run report.
`resolve_key_and_options` (settings.py) turns the shared command-line options into the key
and the `DeidOptions` of a run, for the batch command and for Spark alike. The command
line (cli/deidentify.py) and Spark (cli/spark.py) only parse their options and call these;
`RunError` is what stops a run before it starts. record.py: the run report's options, the
progress bar and the lines printed about failed reports; workers.py: the forked workers; heap.py:
the loaded pipeline kept out of the garbage collector's full passes while it runs.
"""

from ..errors import RunError
from .config import REPORT_NAME, RunConfig
from .report import RunReport
from .runner import Run, run
from .settings import resolve_key_and_options

__all__ = [
    "REPORT_NAME",
    "Run",
    "RunConfig",
    "RunError",
    "RunReport",
    "resolve_key_and_options",
    "run",
]
