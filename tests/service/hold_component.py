"""A spaCy component for the server tests (imported with `serve --code`): a text that holds
HOLD_MARK waits in the pipeline until the file `release` appears in MEDDOCAN_TEST_HOLD_DIR
(it writes `entered` there first), so that a request is surely in flight."""

import os
import time
from pathlib import Path

from spacy.language import Language

HOLD_MARK = "[[retener]]"
MAX_HOLD_SECONDS = 60


@Language.component("test_hold")
def hold(doc):
    folder = os.environ.get("MEDDOCAN_TEST_HOLD_DIR")
    if folder and HOLD_MARK in doc.text:
        folder = Path(folder)
        (folder / "entered").touch()
        deadline = time.monotonic() + MAX_HOLD_SECONDS
        while not (folder / "release").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return doc
