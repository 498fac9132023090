"""The `Deidentifier`, as the README shows it: `from meddocan_deid import Deidentifier`, built once
(the operator of each label, the key and the gazetteer settled then) and reused for many texts;
`apply_operator` gets the operators it settled; the surrogate operator's own fallbacks."""

import meddocan_deid
from meddocan_deid import Deidentifier
from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.operators import SurrogateOperator, make_context

KEY = b"an example key, at least 16 bytes"
NOTES = [
    ("r1", "Nombre: Ana.\nApellidos: Ruiz Gil.\nNHC: 5192837.\n"),
    ("r2", "Remitido por: Dr. Luis Albarrán Tejero. Teléfono: 915 37 48 21\n"),
]


def test_exported_at_the_top_like_presidio_engines():
    assert "Deidentifier" in meddocan_deid.__all__
    assert meddocan_deid.Deidentifier is meddocan_deid.deid.Deidentifier


def test_built_once_and_reused_gives_what_the_one_call_api_gives(rule_nlp):
    deid = Deidentifier(rule_nlp, mode="surrogate", key=KEY)
    outputs = [deid.deidentify(text, scope=rid).text for rid, text in NOTES]
    assert outputs == [
        meddocan_deid.deidentify(text, mode="surrogate", key=KEY, nlp=rule_nlp, scope=rid).text
        for rid, text in NOTES
    ]
    assert "5192837" not in outputs[0] and "915 37 48 21" not in outputs[1]
    # the same object again: the same surrogates
    assert [deid.deidentify(text, scope=rid).text for rid, text in NOTES] == outputs


def test_the_operators_are_settled_once_and_passed_on(rule_nlp):
    options = DeidOptions(label_modes={"ID_SUJETO_ASISTENCIA": "mask"})
    deid = Deidentifier(rule_nlp, mode="tag", options=options)
    assert (
        deid.operators["ID_SUJETO_ASISTENCIA"] == "mask"
        and deid.operators["NOMBRE_SUJETO_ASISTENCIA"] == "tag"
    )
    text = "Nombre: Ana.\nNHC: 5192837.\n"
    spans = [("NOMBRE_SUJETO_ASISTENCIA", 8, 11), ("ID_SUJETO_ASISTENCIA", 18, 25)]
    # the operators given win over the mode: the caller's settled table is used as it is
    given = apply_operator(
        text, spans, "tag", options=options, operators={"NOMBRE_SUJETO_ASISTENCIA": "redact"}
    )
    assert given.text == "Nombre: .\nNHC: [ID_SUJETO_ASISTENCIA].\n"
    assert (
        apply_operator(text, spans, "tag", options=options, operators=deid.operators).text
        == "Nombre: [NOMBRE_SUJETO_ASISTENCIA].\nNHC: *******.\n"
    )
    assert (
        deid.deidentify(text, found=spans).text
        == "Nombre: [NOMBRE_SUJETO_ASISTENCIA].\nNHC: *******.\n"
    )


def test_the_surrogate_operator_owns_its_fallbacks():
    text = "Código ZX-4471 del lote alfa beta.\n"
    spans = [("OTRO_CODIGO", 7, 14), ("OTRA_COSA", 24, 33)]
    options = DeidOptions()
    ctx = make_context(text, spans, KEY, "r1", options)
    surrogate = SurrogateOperator(ctx, options, {})
    code = surrogate("OTRO_CODIGO", "ZX-4471")
    # a label without a generator: a code keeps its shape with new
    # characters, no run of 3 digits kept
    assert (
        code != "ZX-4471"
        and len(code) == 7
        and code[2] == "-"
        and "447" not in code
        and "471" not in code
    )
    assert (
        surrogate("OTRA_COSA", "alfa beta") == "[OTRA_COSA]"
    )  # words: the tag, never random letters
    assert ctx.field == ""
