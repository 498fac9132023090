"""The shared `.ann` is in the output's offsets (each entity on its replacement), the private
one in the original's; `validate_ann` catches an `.ann` that does not line up. Invented texts."""

import pytest

from meddocan_deid.brat import (
    AnnError,
    format_output_ann,
    format_private_ann,
    fragments,
    parse_ann,
    read_ann,
    validate_ann,
)
from meddocan_deid.deid import apply_operator
from meddocan_deid.engine.output import format_ann

KEY = b"ann-test-key-0123456789"
TEXT = (
    "Nombre: Rosalía Quintanar Bermejo.\tNHC: 4471029.\n"
    "Domicilio: C/ Alcornoque, 17\n28044 Villaverde\n"
    "Fecha de ingreso: 03/02/2011. Varón de 52 años. Email: rquintanar@ejemplo.es\n"
)


def find(sub: str, label: str):
    start = TEXT.index(sub)
    return (label, start, start + len(sub))


# a span crossing a line break (CALLE) and one after a tab (ID_SUJETO_ASISTENCIA)
SPANS = [
    find("Rosalía Quintanar Bermejo", "NOMBRE_SUJETO_ASISTENCIA"),
    find("4471029", "ID_SUJETO_ASISTENCIA"),
    find("C/ Alcornoque, 17\n28044", "CALLE"),
    find("Villaverde", "TERRITORIO"),
    find("03/02/2011", "FECHAS"),
    find("Varón", "SEXO_SUJETO_ASISTENCIA"),
    find("52 años", "EDAD_SUJETO_ASISTENCIA"),
    find("rquintanar@ejemplo.es", "CORREO_ELECTRONICO"),
]
MODES = ("tag", "mask", "redact", "surrogate")


@pytest.mark.parametrize("mode", MODES)
def test_output_ann_lines_up_with_the_output(mode):
    res = apply_operator(TEXT, SPANS, mode, KEY if mode == "surrogate" else None)
    ann = format_output_ann(res.text, res.replacements)
    assert format_ann(res.text, res.replacements) == ann  # what the CLI writes beside the .txt
    n = validate_ann(res.text, ann)
    nonempty = [r for r in res.replacements if r.new_end > r.new_start]
    assert n == len(nonempty) == (0 if mode == "redact" else len(SPANS))
    for tid, label, frags, surface in parse_ann(ann):
        r = res.replacements[int(tid[1:]) - 1]  # T<n> is the n-th PHI
        assert label == r.label and frags[0][0] == r.new_start and frags[-1][1] == r.new_end
        assert " ".join(res.text[s:e] for s, e in frags) == surface


@pytest.mark.parametrize("mode", MODES)
def test_private_ann_lines_up_with_the_original(mode):
    res = apply_operator(TEXT, SPANS, mode, KEY if mode == "surrogate" else None)
    ann = format_private_ann(TEXT, res.replacements)
    assert validate_ann(TEXT, ann) == len(SPANS)
    assert [(label, f[0][0], f[-1][1]) for _, label, f, _ in parse_ann(ann)] == SPANS


@pytest.mark.parametrize("mode", ("tag", "surrogate"))
def test_output_ann_does_not_line_up_with_the_original(mode):
    """The old bug: original offsets beside the de-identified text."""
    res = apply_operator(TEXT, SPANS, mode, KEY if mode == "surrogate" else None)
    with pytest.raises(AnnError, match="text column differs"):
        validate_ann(TEXT, format_output_ann(res.text, res.replacements))


def test_mask_across_a_line_break_is_two_fragments(tmp_path):
    res = apply_operator(TEXT, SPANS, "mask")
    ann = format_output_ann(res.text, res.replacements)
    calle = [line for line in ann.splitlines() if "\tCALLE " in line][0]
    assert ";" in calle.split("\t")[1]
    # the continuous entities also pass the project's own BRAT reader
    (tmp_path / "x.ann").write_text(
        "".join(line + "\n" for line in ann.splitlines() if ";" not in line), encoding="utf-8"
    )
    assert len(read_ann(tmp_path / "x.ann", res.text)) == len(SPANS) - 1


@pytest.mark.parametrize(
    "text,start,end,expected",
    [
        ("ab\ncd", 0, 5, [(0, 2), (3, 5)]),
        ("ab\r\n\tcd", 0, 7, [(0, 2), (5, 7)]),
        ("abcd", 1, 3, [(1, 3)]),
        ("a\u2028b", 0, 3, [(0, 1), (2, 3)]),
        ("\n\n", 0, 2, []),
    ],
)
def test_fragments(text, start, end, expected):
    assert fragments(text, start, end) == expected


@pytest.mark.parametrize(
    "text,ann,n",
    [
        (
            "Ana vive en Soria",
            "T1\tNOMBRE_SUJETO_ASISTENCIA 0 3\tAna\nT2\tTERRITORIO 12 17\tSoria\n",
            2,
        ),
        ("Ana\nRuiz", "T1\tNOMBRE_SUJETO_ASISTENCIA 0 3;4 8\tAna Ruiz\n", 1),
        ("sin nada", "", 0),
        ("Ana", "#1\tAnnotatorNotes T1\tnota\nT1\tNOMBRE_SUJETO_ASISTENCIA 0 3\tAna\n", 1),
    ],
)
def test_validate_ann_accepts(text, ann, n):
    assert validate_ann(text, ann) == n


@pytest.mark.parametrize(
    "text,ann,problem",
    [
        ("Ana vive en Soria", "T1\tNOMBRE_SUJETO_ASISTENCIA 0 4\tAna\n", "text column differs"),
        ("Ana", "T1\tNOMBRE_SUJETO_ASISTENCIA 0 9\tAna\n", "outside the text"),
        ("Ana", "T1\tNOMBRE_SUJETO_ASISTENCIA 2 2\t\n", "empty"),
        ("Ana\nRuiz", "T1\tNOMBRE_SUJETO_ASISTENCIA 4 8;0 3\tRuiz Ana\n", "unordered"),
        ("Ana", "T1\tNOMBRE_SUJETO_ASISTENCIA 0 3\n", "expected"),
        ("Ana", "T1 NOMBRE_SUJETO_ASISTENCIA 0 3 Ana\n", "expected"),
        (
            "Ana Ana",
            "T1\tNOMBRE_SUJETO_ASISTENCIA 0 3\tAna\nT1\tNOMBRE_SUJETO_ASISTENCIA 4 7\tAna\n",
            "duplicate",
        ),
    ],
)
def test_validate_ann_rejects(text, ann, problem):
    with pytest.raises(AnnError, match=problem) as err:
        validate_ann(text, ann)
    assert "Ana" not in str(err.value)  # names the entity and offsets, never the text


def test_validate_folder(tmp_path):
    from meddocan_deid.brat import validate_folder
    from meddocan_deid.engine.output import write_report

    res = apply_operator(TEXT, SPANS, "tag")
    write_report(tmp_path / "out", "sub/a", res.text, res.replacements)
    assert validate_folder(tmp_path / "out") == len(SPANS)
    # the original's offsets beside the output: the old misalignment, caught with the file name
    (tmp_path / "out" / "sub" / "a.ann").write_text(
        format_private_ann(TEXT, res.replacements), encoding="utf-8"
    )
    with pytest.raises(AnnError, match=r"a\.ann: entity T1"):
        validate_folder(tmp_path / "out")
