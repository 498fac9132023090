"""The `tag_format` option (the tag's text in tag mode) from the Python API, the command line
(`--option tag_format=...`) and the service (a request's `options`)."""

import re

import pytest
import spacy
from spacy.tokens import Span

import meddocan_deid

REPORT = (
    "Datos del paciente.\nNombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 1000037.\n"
    "Informe clínico del paciente: mujer de 38 años que acude por dolor abdominal.\n"
)
TAG = re.compile(r"<<([A-Z_]+)#(\d+)>>")


def test_python_api():
    doc = spacy.blank("es")("Ana vio a Ana y a Eva.")
    doc.ents = [Span(doc, i, i + 1, "NOMBRE_SUJETO_ASISTENCIA") for i in (0, 3, 6)]
    assert meddocan_deid.deidentify(doc, options={"tag_format": "<{label}>"}).text == (
        "<NOMBRE_SUJETO_ASISTENCIA> vio a <NOMBRE_SUJETO_ASISTENCIA> y a "
        "<NOMBRE_SUJETO_ASISTENCIA>."
    )
    numbered = meddocan_deid.deidentify(
        doc,
        options={
            "tag_format": "<<{label}#{n}>>",
            "tag_numbering": True,
            "tag_names": {"NOMBRE_SUJETO_ASISTENCIA": "NOMBRE"},
        },
    )
    assert numbered.text == "<<NOMBRE#1>> vio a <<NOMBRE#1>> y a <<NOMBRE#2>>."
    # the default is the tag of before, with and without numbering
    assert meddocan_deid.deidentify(doc, tag_numbering=True).text.startswith(
        "[NOMBRE_SUJETO_ASISTENCIA-1] vio"
    )
    with pytest.raises(ValueError, match=r"^option tag_format: unknown field \{x\}"):
        meddocan_deid.deidentify(doc, options={"tag_format": "[{x}]"})


def test_command_line(tmp_path, rule_nlp):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    model = tmp_path / "model"
    rule_nlp.to_disk(model)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(REPORT, encoding="utf-8")
    args = [
        "deidentify",
        tmp_path / "in",
        tmp_path / "out",
        "--mode",
        "tag",
        "--model",
        model,
        "--tag-numbering",
        "--option",
        "tag_format=<<{label}#{n}>>",
    ]
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.stderr
    text = (tmp_path / "out" / "a.txt").read_text(encoding="utf-8")
    assert "NOMBRE_SUJETO_ASISTENCIA#1" in text and "Ruiz" not in text and "[" not in text
    bad = CliRunner().invoke(app, [str(a) for a in args[:-1]] + ["tag_format=[{x}]"])
    assert bad.exit_code == 2 and "--option tag_format: unknown field {x}" in bad.stderr


def test_service(tmp_path, rule_nlp):
    from fastapi.testclient import TestClient

    from meddocan_deid.service.app import create_app
    from meddocan_deid.service.settings import ServiceSettings

    tokens = tmp_path / "tokens.txt"
    tokens.write_text("t" * 40 + "\n", encoding="utf-8")
    auth = {"Authorization": "Bearer " + "t" * 40}
    with TestClient(create_app(ServiceSettings(token_file=tokens), nlp=rule_nlp)) as client:
        r = client.post(
            "/deidentify",
            headers=auth,
            json={
                "text": REPORT,
                "options": {"tag_format": "<<{label}#{n}>>", "tag_numbering": True},
            },
        )
        assert r.status_code == 200, r.text
        body = r.json()
        for e in body["entities"]:
            assert TAG.fullmatch(body["text"][e["new_start"] : e["new_end"]]).group(1) == e["label"]
        bad = client.post(
            "/deidentify", headers=auth, json={"text": REPORT, "options": {"tag_format": "[{x}]"}}
        )
        assert bad.status_code == 422 and "options" in bad.text and "Ruiz" not in bad.text
