"""The de-identification engine: one run of the pipeline over a file, a folder, a JSONL file
or a table into an output folder, or over a Spark input into a Spark output, whatever starts it.

`RunConfig` (config.py; `SparkJob`: a run on Apache Spark) is what a run is asked to do; `Run`
(runner.py) does it, from any source of meddocan_deid/formats (reports, documents, FHIR and
HL7 v2 files, a folder, JSONL, a table; on Spark, a format's Spark source and sink): checks
the paths, loads the model, takes the output folder's lock, checks the fingerprint (resume or
refuse), writes each report, the private copies and the review site, and the run report, the
one `RunReport` (report.py) of every kind of run, with its failures by name, its exit code and
its summary lines.
`resolve_key_and_options` (settings.py) turns the options the command line and Spark share into
the key and the `DeidOptions` of a run. The command line (cli/deidentify.py, cli/spark.py) only
maps its options onto a RunConfig and prints the report's lines; `RunError` is what stops a run
before it starts. record.py: the run report's options, the progress bar and the lines printed
about failed reports; output.py: the output folder's lock, the resume digests and the writes;
interchange.py: the FHIR and HL7 v2 files of a run, written back whole in their format.
"""

from ..errors import RunError
from .config import REPORT_NAME, RunConfig, SparkJob
from .report import RunReport
from .runner import Run, run
from .settings import resolve_key_and_options

__all__ = [
    "REPORT_NAME",
    "Run",
    "RunConfig",
    "RunError",
    "RunReport",
    "SparkJob",
    "resolve_key_and_options",
    "run",
]
