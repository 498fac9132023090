"""Run as a script by test_offline.py: blocks every outgoing socket call before anything else
is imported, then imports the library, builds and saves the rule pipeline, loads it as the CLI
does, de-identifies a text, runs `meddocan-deid deidentify` and the service (its ASGI app
through an in-process client, no listening socket). Prints one JSON line: the steps done and
every socket call attempted (none expected). Invented text."""

import json
import socket
import sys
from pathlib import Path

ATTEMPTS: list[str] = []


def blocked(name):
    def refuse(*args, **kwargs):
        ATTEMPTS.append(name)
        raise OSError(f"network blocked by the offline test ({name})")

    return refuse


socket.socket.connect = blocked("socket.connect")
socket.socket.connect_ex = blocked("socket.connect_ex")
socket.socket.sendto = blocked("socket.sendto")
socket.create_connection = blocked("socket.create_connection")
socket.getaddrinfo = blocked("socket.getaddrinfo")

ROOT, WORK = Path(sys.argv[1]), Path(sys.argv[2])
TEXT = "Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\nTel: 612 345 678.\n"
steps: list[str] = []

import meddocan_deid  # noqa: E402  (after the block, on purpose)
from meddocan_deid.pipeline.loading import load_model  # noqa: E402
from meddocan_deid.pipeline.rules_only import build_rule_pipeline  # noqa: E402

steps.append("import")
model = WORK / "model"
build_rule_pipeline(ROOT / "configs" / "pipeline.cfg", ROOT / "configs" / "patterns").to_disk(model)
nlp = load_model(str(model), None)
steps.append("load")
result = meddocan_deid.Deidentifier(nlp, "surrogate", key=b"k" * 32).deidentify(TEXT)
assert "5192837" not in result.text and "Ruiz" not in result.text
steps.append("deidentify")

from meddocan_deid.cli.app import main  # noqa: E402

(WORK / "in").mkdir()
(WORK / "in" / "nota.txt").write_text(TEXT, encoding="utf-8")
(WORK / "deid.key").write_text("k" * 32 + "\n", encoding="utf-8")
try:
    main(
        ["deidentify", str(WORK / "in"), str(WORK / "out"), "--mode", "surrogate", "--key-file"]
        + [str(WORK / "deid.key"), "--model", str(model)]
    )
except SystemExit as done:
    assert done.code == 0, done.code
assert "5192837" not in (WORK / "out" / "nota.txt").read_text(encoding="utf-8")
steps.append("cli")

from fastapi.testclient import TestClient  # noqa: E402

from meddocan_deid.service import ServiceSettings, create_app  # noqa: E402

token = "token-sin-red-0123456789abcdef"
(WORK / "tokens.txt").write_text(token + "\n", encoding="utf-8")
settings = ServiceSettings(model=str(model), token_file=WORK / "tokens.txt")
with TestClient(create_app(settings)) as client:  # the pipeline loads at startup
    for _ in range(600):
        if client.get("/ready").status_code == 200:
            break
        import time

        time.sleep(0.05)
    answer = client.post(
        "/deidentify", json={"text": TEXT}, headers={"Authorization": f"Bearer {token}"}
    )
    assert answer.status_code == 200, answer.status_code
    assert "5192837" not in answer.json()["text"]
steps.append("service")

before = list(ATTEMPTS)
try:  # the control: the block is in place
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    control = False
except OSError:
    control = ATTEMPTS[len(before) :] == ["socket.create_connection"]
print(json.dumps({"steps": steps, "attempts": before, "control_blocked": control}))
