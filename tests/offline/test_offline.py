"""Offline, proved: with every outgoing socket call blocked (connect, connect_ex, sendto,
create_connection, getaddrinfo raise and are recorded) from before the first import, the
library imports, a pipeline is built, saved and loaded, a text is de-identified, the CLI runs
and the service answers through its ASGI app; no socket call is even attempted."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
SESSION = Path(__file__).parent / "offline_session.py"


def test_import_load_deidentify_cli_and_service_make_no_network_call(tmp_path):
    paths = [str(ROOT / "components"), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    env.pop("MEDDOCAN_DEID_AUDIT_LOG", None)
    done = subprocess.run(
        [sys.executable, str(SESSION), str(ROOT), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["steps"] == ["import", "load", "deidentify", "cli", "service"]
    assert report["attempts"] == []
    assert report["control_blocked"] is True
