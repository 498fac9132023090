"""HL7 v2 round trip: PID/NK1/PV1 fields replaced by rule, dates shifted, OBX text and NTE
comments de-identified with the message's values as known PHI, structure and escapes kept,
MLLP framing kept. All values are invented."""

import pytest

from meddocan_deid import Deidentifier
from meddocan_deid.formats import hl7v2

KEY = b"h" * 32
ADT = "\r".join(
    (
        "MSH|^~\\&|HIS|HOSP|LAB|HOSP|20240201101500||ADT^A01|MSG001|P|2.5",
        "EVN|A01|20240201101500",
        "PID|1||NHC778812^^^HOSP^MR||Zubiarrain^Eladia^^^Sra||19610314|F|||"
        "Calle Olmo Rojo 14^^Villaverde^^28021^ESP||612334908",
        "NK1|1|Zubiarrain^Ovidio|HIJ|Calle Olmo Rojo 14^^Villaverde|699112233",
        "PV1|1|I|MI^101^1||||4455^Larrauri^Telmo|||||||||||VIS9911|||||||||||||||||||||||||"
        "20240201101500|20240209120000",
    )
)
ORU = "\r".join(
    (
        "MSH|^~\\&|LAB|HOSP|HIS|HOSP|20240203090000||ORU^R01|MSG002|P|2.5",
        "PID|1||NHC778812^^^HOSP^MR||Zubiarrain^Eladia",
        "OBR|1|ORD55|RES66|INF^Informe|||20240203080000",
        "OBX|1|TX|INF^Informe||Eladia Zubiarrain estable \\T\\ sin fiebre.~Llamar al 612334908."
        "||||||F",
        "NTE|1||Avisada la familia de Zubiarrain.",
    )
)


@pytest.fixture(scope="module")
def hl7_deid(rule_nlp):
    return hl7v2.Hl7Deidentifier(Deidentifier(rule_nlp, "surrogate", key=KEY))


def segments(text):
    return [seg.split("|")[0] for seg in text.strip("\r").split("\r")]


def test_messages_round_trip(hl7_deid):
    out = hl7v2.deidentify_text(ADT + "\r" + ORU + "\r", hl7_deid)
    messages, framed = hl7v2.split_messages(out)
    assert len(messages) == 2 and not framed
    for before, after in zip((ADT, ORU), messages, strict=True):
        assert segments(after) == segments(before)
        assert [len(s.split("|")) for s in after.split("\r")] == [
            len(s.split("|")) for s in before.split("\r")
        ]
        hl7v2.parse(after)
    for value in ("Zubiarrain", "Eladia", "Ovidio", "NHC778812", "612334908", "Olmo", "Larrauri"):
        assert value not in out
    adt, oru = messages
    assert adt.startswith("MSH|^~\\&|")
    pid = adt.split("\r")[2].split("|")
    assert pid[7] != "19610314" and len(pid[7]) == 8
    obx = oru.split("\r")[3].split("|")
    assert "\\T\\" in obx[5] and "estable" in obx[5] and "~" in obx[5]
    assert "Avisada la familia" in oru.split("\r")[4]
    # the same patient id hashes alike in both messages
    assert adt.split("\r")[2].split("|")[3] == oru.split("\r")[1].split("|")[3]


def test_mllp_framing_kept(hl7_deid):
    framed = f"\x0b{ORU}\r\x1c\r"
    out = hl7v2.deidentify_text(framed, hl7_deid)
    assert out.startswith("\x0bMSH|") and out.endswith("\x1c\r")
    assert "Zubiarrain" not in out


def test_segment_before_msh_is_an_error(hl7_deid, tmp_path):
    path = tmp_path / "bad.hl7"
    path.write_text("PID|1||X\rMSH|^~\\&|A", "utf-8")
    with pytest.raises(hl7v2.Hl7Error, match="bad.hl7: a segment comes before the first MSH"):
        hl7v2.deidentify_paths([path], tmp_path / "out", hl7_deid)


def test_bad_rule_is_named(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('[{"field": "PID5", "action": "redact"}]', "utf-8")
    with pytest.raises(hl7v2.Hl7Error, match="r.json: rule 1: 'field' is not like 'PID-5'"):
        hl7v2.load_rules(path)


def test_cli_hl7_file(monkeypatch, rule_nlp, tmp_path):
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    monkeypatch.setattr("meddocan_deid.engine.runner.load_model", lambda *a, **k: rule_nlp)
    src = tmp_path / "adt.hl7"
    src.write_bytes((ADT + "\r").encode())
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["deidentify", str(src), str(out), "--mode", "surrogate"],
        env={"MEDDOCAN_DEID_KEY": "k" * 32},
    )
    assert result.exit_code == 0, result.output
    text = (out / "adt.hl7").read_bytes().decode("utf-8")
    assert segments(text) == segments(ADT) and "Zubiarrain" not in text


def test_kinship_word_as_a_surname_is_replaced(hl7_deid):
    message = ADT.replace("NK1|1|Zubiarrain^Ovidio", "NK1|1|Nieto^Ovidio")
    out = hl7v2.deidentify_text(message, hl7_deid)
    nk1 = next(s for s in out.split("\r") if s.startswith("NK1"))
    assert "Nieto" not in nk1.split("|")[2]


def test_kinship_word_as_a_surname_is_replaced_in_text(hl7_deid):
    message = ORU.replace("Avisada la familia de Zubiarrain.", "Avisado su hijo Ovidio Nieto.")
    message = message.replace("NTE|", "NK1|1|Nieto^Ovidio\rNTE|")
    out = hl7v2.deidentify_text(message, hl7_deid)
    nte = next(s for s in out.split("\r") if s.startswith("NTE"))
    assert "Nieto" not in nte and "Ovidio" not in nte
