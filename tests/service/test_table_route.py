"""POST /deidentify/table: a table given as JSON rows, de-identified as the CLI does a table
file (rule-only pipeline, in-process client). All rows are invented."""

import logging

import pytest
from fastapi.testclient import TestClient

from meddocan_deid.deid.tables import TableSpec, deidentify_table
from meddocan_deid.service.app import create_app
from meddocan_deid.service.settings import ServiceSettings

TOKEN = "token-de-prueba-para-tablas-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
KEY = "clave de prueba inventada para tablas, 32+"
ROWS = [
    {
        "id": "r1",
        "paciente": "p1",
        "nombre": "Eulalia Marcó Bentabol",
        "nhc": "7734519",
        "servicio": "Digestivo",
        "nota": "Eulalia Marcó Bentabol, NHC 7734519, acude por dolor abdominal.",
    },
    {
        "id": "r2",
        "paciente": "p2",
        "nombre": "Baltasar Ojeda Riquelme",
        "nhc": "5512093",
        "servicio": "Neumología",
        "nota": "Refiere disnea de esfuerzo.",
    },
    {
        "id": "r3",
        "paciente": "p1",
        "nombre": "Eulalia Marcó Bentabol",
        "nhc": "7734519",
        "servicio": "Digestivo",
        "nota": "Control: la Sra. Bentabol mejora. Historia 7734519.",
    },
]
SECRETS = ("Eulalia", "Bentabol", "7734519", "Baltasar", "Riquelme", "5512093")
COLUMNS = {
    "id_column": "id",
    "text_columns": ["nota"],
    "patient_column": "paciente",
    "phi_columns": {"nombre": "NOMBRE_SUJETO_ASISTENCIA", "nhc": "ID_SUJETO_ASISTENCIA"},
}


@pytest.fixture(scope="module")
def client(tmp_path_factory, rule_nlp):
    folder = tmp_path_factory.mktemp("table_service")
    (folder / "tokens.txt").write_text(TOKEN + "\n", encoding="utf-8")
    (folder / "deid.key").write_text(KEY + "\n", encoding="utf-8")
    settings = ServiceSettings(token_file=folder / "tokens.txt", key_file=folder / "deid.key")
    with TestClient(create_app(settings, nlp=rule_nlp)) as c:
        yield c


@pytest.mark.parametrize("mode", ["tag", "surrogate"])
def test_the_same_rows_come_back_with_no_phi_and_as_the_library_makes_them(
    client, rule_nlp, mode, caplog
):
    caplog.set_level(logging.DEBUG)
    r = client.post("/deidentify/table", json={"rows": ROWS, "mode": mode, **COLUMNS}, headers=AUTH)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["mode"] == mode and body["failed"] == 0
    rows = body["rows"]
    assert [row["id"] for row in rows] == ["r1", "r2", "r3"]
    assert all(
        list(row) == [*ROWS[0], "deid_status"] and row["deid_status"] == "ok" for row in rows
    )
    assert [row["servicio"] for row in rows] == [
        row["servicio"] for row in ROWS
    ]  # other columns untouched
    for secret in SECRETS:
        assert secret not in r.text and secret not in caplog.text
    # the same table through the library with the same key gives the same cells
    import pyarrow as pa

    lib = deidentify_table(
        pa.Table.from_pylist(ROWS),
        columns=TableSpec(
            id_column="id",
            text_columns=("nota",),
            patient_column="paciente",
            phi_columns=COLUMNS["phi_columns"],
        ),
        mode=mode,
        key=KEY.encode(),
        nlp=rule_nlp,
    )
    assert lib.table.to_pylist() == rows


def test_bad_columns_are_named_and_need_a_token(client):
    r = client.post(
        "/deidentify/table",
        json={"rows": ROWS, **COLUMNS, "text_columns": ["informe"]},
        headers=AUTH,
    )
    assert r.status_code == 422 and "informe" in r.text
    for secret in SECRETS:
        assert secret not in r.text
    r = client.post(
        "/deidentify/table",
        json={"rows": ROWS, **COLUMNS, "phi_columns": {"nombre": "NOMBRE_PACIENTE"}},
        headers=AUTH,
    )
    assert r.status_code == 422 and "NOMBRE_PACIENTE" in r.text
    assert client.post("/deidentify/table", json={"rows": ROWS, **COLUMNS}).status_code == 401


def test_known_phi_with_a_table_is_refused_not_ignored(client):
    r = client.post(
        "/deidentify/table",
        json={"rows": ROWS, **COLUMNS, "known_phi": {"NOMBRE_SUJETO_ASISTENCIA": ["Eulalia"]}},
        headers=AUTH,
    )
    assert r.status_code == 422 and "phi_columns" in r.text and "Eulalia" not in r.text


def test_failed_rows_are_named_as_the_run_report_of_a_table_file_names_them(client):
    """The same report as a table run's: each failed row by number, id where it has one, and
    reason; never a cell of it."""
    rows = [dict(ROWS[0]), {**ROWS[1], "id": None}, {**ROWS[2], "nota": ["no", "texto"]}]
    r = client.post(
        "/deidentify/table", json={"rows": rows, "mode": "tag", **COLUMNS}, headers=AUTH
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["failed"] == 2
    assert [(f["row"], f.get("id")) for f in body["failures"]] == [(2, None), (3, "r3")]
    assert body["failures"][0]["reason"] == "no id (column 'id' is empty)"
    assert body["failures"][1]["reason"].startswith("nota: not a text value")
    for secret in SECRETS:
        assert secret not in r.text
