"""Run as a script by test_fail_closed.py (Spark local mode, its own JVM): a pipeline with a
component that raises on one row; prints each row's id, status and whether its text is null."""

import json
import sys
from pathlib import Path

import raising_component  # noqa: F401
from raising_component import MARKER

from meddocan_deid.pipeline.rules_only import build_rule_pipeline
from meddocan_deid.spark import deidentify_dataframe, make_session

ROOT, WORK = Path(sys.argv[1]), Path(sys.argv[2])
nlp = build_rule_pipeline(ROOT / "configs" / "pipeline.cfg", ROOT / "configs" / "patterns")
nlp.add_pipe("raises_on_marker", last=True)
nlp.to_disk(WORK / "model")
spark = make_session("local[1]", app_name="fail-closed", conf={"spark.ui.enabled": "false"})
try:
    rows = [
        ("bien", "Nombre: Ana.\nNHC: 5192837.\n"),
        ("roto", f"Nombre: Leocadia.\nNHC: 8812034.\n{MARKER}\n"),
    ]
    frame = spark.createDataFrame(rows, "id string, text string")
    out = deidentify_dataframe(frame, "tag", None, model=str(WORK / "model"))
    result = [
        {"id": r["id"], "status": r["status"], "text_is_null": r["deid_text"] is None}
        for r in out.collect()
    ]
finally:
    spark.stop()
print(json.dumps(sorted(result, key=lambda r: r["id"])))
