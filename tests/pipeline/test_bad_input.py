"""Bad and unusual input: the rule pipeline must not crash, and errors must name
files and lines without echoing report or pattern contents."""

from pathlib import Path

import pytest

from meddocan_deid.brat import BratError, read_ann
from meddocan_deid.pipeline.patterns import PatternFileError, load_patterns

ROOT = Path(__file__).parent.parent.parent
MARKER = "Zorionak Etxeberria"  # an invented, distinctive name


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "\n",
        "\t\t",
        "  \n\t\n ",
        "\r\n\r\n",
        "\ufeff",
        "\x00\x01\x02",
        "Informe clínico sin cabecera: paciente estable.\n",
        "Datos del paciente.\r\n"
        "Nombre: Ana.\r\n"
        "Sexo:\r\n"
        "\r\n"
        "Informe clínico.\r\n"
        "\r\n"
        "Remitido por: Fax:\r\n",
        "Datos del paciente.\n\tNombre:\tAna Ruiz.\n\tEdad:\t16 años\n\n\tInforme\tclínico.\n",
        "Datos del paciente.\rNombre: Ana Ruiz.\rInforme clínico.\r",  # old Mac line endings
        "Nombre:",
        "Remitido por:",
        "Datos del paciente. Nombre: Ana. Apellidos: Ruiz. Informe clínico en la misma línea.",
        "Datos del paciente.\n" + "Nombre: Ana.\n" * 200,
        "Remitido por: x\n" + "Fax: 987 41 06 58\n" * 200,
        "😀 Informe clínico: 🏥 C/ ✓ s/ Fax: ☎ +34",
    ],
)
def test_no_crash(rule_nlp, text):
    doc = rule_nlp(text)
    assert doc.text == text
    for key in ("sections", "phi_rules", "rule_entities", "trusted_phi"):
        assert key in doc.spans
    for ent in doc.ents:
        assert ent.text.strip()


def test_no_crash_in_a_batch(rule_nlp):
    texts = ["", "  ", "Informe clínico.", "Datos del paciente.\r\nNombre: Ana Ruiz.\r\n"] * 5
    docs = list(rule_nlp.pipe(texts, batch_size=3))
    assert [d.text for d in docs] == texts


@pytest.mark.parametrize("bad", [None, 42, ["Informe clínico."]])
def test_non_string_input_is_a_clear_error(rule_nlp, bad):
    with pytest.raises((ValueError, TypeError)):
        rule_nlp(bad)


def test_too_long_text_raises_without_echoing_it(rule_nlp):
    text = (MARKER + ". ") * (2_000_000 // (len(MARKER) + 2) + 1)
    assert len(text) > 2_000_000 > rule_nlp.max_length
    with pytest.raises(ValueError) as info:
        rule_nlp(text)
    message = str(info.value)
    assert "E088" in message
    assert str(len(text)) in message
    assert MARKER not in message
    assert MARKER.split()[1] not in message
    with pytest.raises(ValueError) as info:
        list(rule_nlp.pipe([text]))
    assert MARKER not in str(info.value)


def _header_line_work(nlp, monkeypatch, n_keys: int):
    """(tokens visited while reading the header values, the containers of the key positions)
    for a one-line header of `n_keys` keys: counted, not timed."""
    from meddocan_deid.pipeline import rule_entities

    visits = []
    containers = []
    real_break = rule_entities.is_line_break
    real_line_value = rule_entities.RuleEntities._line_value

    def counting_break(token):
        visits.append(1)
        return real_break(token)

    def spying_line_value(self, doc, key, sec, header_keys):
        containers.append(header_keys)
        return real_line_value(self, doc, key, sec, header_keys)

    monkeypatch.setattr(rule_entities, "is_line_break", counting_break)
    monkeypatch.setattr(rule_entities.RuleEntities, "_line_value", spying_line_value)
    doc = nlp("Datos del paciente. " + "Nombre: Zq. " * n_keys)
    monkeypatch.undo()
    assert len(doc.spans["rule_entities"]) == n_keys
    return len(visits), containers


def test_long_single_line_header_is_not_quadratic(rule_nlp, monkeypatch):
    # thousands of header keys on one line: reading each value stops at the next key, and
    # looking up whether a token starts a key is a hash lookup (it was a list: quadratic)
    small, small_keys = _header_line_work(rule_nlp, monkeypatch, 2000)
    large, large_keys = _header_line_work(rule_nlp, monkeypatch, 8000)
    assert large <= 4.5 * small  # linear in the keys: four times the keys, four times the tokens
    assert len(large_keys) == 8000 and all(isinstance(k, (set, frozenset)) for k in large_keys)
    assert len({id(k) for k in large_keys}) == 1  # built once per document, not per key
    assert len(next(iter(large_keys))) == 8000


# -- pattern files --------------------------------------------------------------------


def test_missing_pattern_file(tmp_path):
    path = tmp_path / "nope.jsonl"
    with pytest.raises(PatternFileError) as info:
        load_patterns(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    "lines,bad_line",
    [
        (['{"label": "X", "pattern": "uno"}', '{"label": "X", "pattern": "' + MARKER], 2),
        (['{"label": "X", "pattern": "uno"}', "", '{"label": "X", "pattern": "dos"}', MARKER], 4),
        (['{"label": "X", "patron": "' + MARKER + '"}'], 1),  # the required key is missing
        (['["pattern", "' + MARKER + '"]'], 1),  # not an object
        (['"pattern ' + MARKER + '"'], 1),
    ],
)
def test_malformed_pattern_file(tmp_path, lines, bad_line):
    path = tmp_path / "patterns.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(PatternFileError) as info:
        load_patterns(path)
    message = str(info.value)
    assert f"{path}:{bad_line}:" in message
    assert MARKER not in message


@pytest.mark.parametrize("line", ["42", "null", "true"])
def test_pattern_line_that_is_a_json_scalar(tmp_path, line):
    path = tmp_path / "patterns.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(PatternFileError, match=":1:"):
        load_patterns(path)


def test_valid_pattern_files_load():
    assert load_patterns(ROOT / "configs" / "patterns" / "sections.jsonl")
    assert load_patterns(ROOT / "configs" / "patterns" / "phi_rules.jsonl")


# -- BRAT annotation files --------------------------------------------------------------

TEXT = f"Paciente {MARKER} de 40 años.\n"
START = TEXT.index(MARKER)
END = START + len(MARKER)


@pytest.mark.parametrize(
    "ann,bad_line",
    [
        (
            f"T1\tNOMBRE_SUJETO_ASISTENCIA {START} {len(TEXT) + 5}\t{MARKER}\n",
            1,
        ),  # end past the text
        (
            "T1\tEDAD_SUJETO_ASISTENCIA 0 4\tPaci\n"
            f"T2\tNOMBRE_SUJETO_ASISTENCIA 9999 10005\t{MARKER}\n",
            2,
        ),
        (f"T1\tNOMBRE_SUJETO_ASISTENCIA {END} {START}\t{MARKER}\n", 1),  # end before start
        (f"T1\tNOMBRE_SUJETO_ASISTENCIA {START + 1} {END}\t{MARKER}\n", 1),  # surface mismatch
        (f"T1\tNOMBRE_SUJETO_ASISTENCIA {START} {END}\t{MARKER[::-1]}\n", 1),
        (f"T1\tNOMBRE_SUJETO_ASISTENCIA {START} {END}\t{MARKER}\nT2 broken line without tabs\n", 2),
        (f"T1\tNOMBRE_SUJETO_ASISTENCIA {START} 12;14 {END}\t{MARKER}\n", 1),  # discontinuous
    ],
)
def test_bad_ann_file(tmp_path, ann, bad_line):
    path = tmp_path / "report.ann"
    path.write_text(ann, encoding="utf-8")
    with pytest.raises(BratError) as info:
        read_ann(path, TEXT)
    message = str(info.value)
    assert f"{path}:{bad_line}:" in message
    assert MARKER not in message
    assert MARKER.split()[0] not in message and MARKER.split()[1] not in message


def test_bad_ann_span_field_is_not_echoed(tmp_path):
    path = tmp_path / "report.ann"
    path.write_text(
        f"T1\tNOMBRE_SUJETO_ASISTENCIA {MARKER} {START} {END}\t{MARKER}\n", encoding="utf-8"
    )
    with pytest.raises(BratError) as info:
        read_ann(path, TEXT)
    assert MARKER.split()[0] not in str(info.value)


def test_good_ann_file(tmp_path):
    path = tmp_path / "report.ann"
    path.write_text(
        f"T1\tNOMBRE_SUJETO_ASISTENCIA {START} {END}\t{MARKER}\n#1\tAnnotatorNotes T1\tnota\n",
        encoding="utf-8",
    )
    assert read_ann(path, TEXT) == [("NOMBRE_SUJETO_ASISTENCIA", START, END)]


def test_ann_not_utf8(tmp_path):
    path = tmp_path / "report.ann"
    path.write_bytes(b"T1\tNOMBRE_SUJETO_ASISTENCIA 0 4\t\xff\xfe\n")
    with pytest.raises(BratError) as info:
        read_ann(path, TEXT)
    assert str(path) in str(info.value)


_STREET_ENTRIES = {
    "Calle Mayor, 12": "Calle Mayor",
    "Avenida del Sol, s/n, 5": "Avenida del Sol",
    "Plaza Real S/N": "Plaza Real",
    "Camino Viejo ,  3b  ": "Camino Viejo",
    "Paseo Alto,": "Paseo Alto",
    "Calle 8": "Calle 8",
    "Ronda Sur, 12 bis": "Ronda Sur, 12 bis",
    "Travesía Snow": "Travesía Snow",
}


def test_a_street_entry_loses_its_number_as_before_the_rewrite(tmp_path):
    import re

    from meddocan_deid.pipeline.patterns import GAZETTEER_FILES, load_gazetteer_patterns

    old = re.compile(r"(?:,\s*(?:\d+[A-Za-z]?|s/n)?|\s+s/n)\s*$", re.IGNORECASE)
    for entry, kept in _STREET_ENTRIES.items():
        while old.search(entry):
            entry = old.sub("", entry).strip()
        assert entry == kept
    for prefix in GAZETTEER_FILES:
        lines = _STREET_ENTRIES if prefix == "Direcciones" else ["Uno"]
        (tmp_path / f"{prefix}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    streets = [p["pattern"] for p in load_gazetteer_patterns(tmp_path) if p["label"] == "street"]
    assert streets == list(_STREET_ENTRIES.values())
