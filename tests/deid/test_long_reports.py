"""Reports longer than the pipeline takes at once go through it in pieces cut at paragraph
and line boundaries: offsets in the original, the output of the pieces one by one, and
the surrogates of one report the same in every piece. Every text here is invented."""

import pytest

from meddocan_deid.deid import Record, deidentify, deidentify_records
from meddocan_deid.deid.pieces import doc_spans, piece_limit, split_pieces

KEY = b"long-key-0123456789abcdef"
BLOCK = (
    "Datos del paciente.\nNombre: Zorionak.\nApellidos: Etxeberria Garmendia.\nNHC: {nhc}.\n"
    "Informe clínico: evolución favorable, alta el {day:02d}/05/2001.\n"
)


def long_text(n: int) -> str:
    return "\n".join(BLOCK.format(nhc=4817000 + 7 * i, day=1 + i % 28) for i in range(n))


def pieces_of(text, limit):
    return [(p.start, text[p.start : p.end]) for p in split_pieces(text, limit)]


def test_split_pieces_at_paragraphs_then_lines_then_anywhere():
    text = long_text(40)
    for limit in (500, 1000, 2600):
        pieces = pieces_of(text, limit)
        assert "".join(p for _s, p in pieces) == text and len(pieces) > 1
        assert all(len(p) <= limit for _s, p in pieces)
        assert all(p.endswith("\n\n") for _s, p in pieces[:-1])  # a paragraph boundary is there
    one_line = "palabra " * 500
    assert all(p.endswith(" ") for _s, p in pieces_of(one_line, 300)[:-1])
    sentences = "Frase corta sin saltos." * 100
    assert all(
        p.endswith(". ") or p.endswith(".")
        for _s, p in pieces_of(sentences.replace(".", ". "), 300)
    )
    no_space = (
        "x" * 1000
    )  # no boundary: hard cuts, each next piece overlapping the last by a quarter
    pieces = split_pieces(no_space, 300)
    assert [(p.start, p.end) for p in pieces] == [
        (0, 300),
        (225, 525),
        (450, 750),
        (675, 975),
        (900, 1000),
    ]
    # the overlaps are split in the middle: every offset is kept by exactly one piece
    assert all(a.keep_to == b.keep_from for a, b in zip(pieces, pieces[1:]))
    assert pieces[0].keep_from == 0 and pieces[-1].keep_to > 1000


def test_an_entity_across_a_hard_cut_is_found_whole():
    import spacy

    nlp = spacy.blank("es")
    nlp.add_pipe("entity_ruler").add_patterns(
        [{"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Zorionak"}]
    )
    nlp.max_length = 600  # pieces of 300 characters
    text = (
        "x\t" * 147 + "Zorionak" + "\tx" * 300
    )  # tabs are no boundary: the name straddles the cut at 300
    assert text.index("Zorionak") < 300 < text.index("Zorionak") + 8
    (res,) = deidentify_records(nlp, [Record("r", text)], "tag", None)
    assert res.ok and res.phi == [("NOMBRE_SUJETO_ASISTENCIA", 294, 302)]
    assert res.text.count("[NOMBRE_SUJETO_ASISTENCIA]") == 1 and "Zorion" not in res.text


def test_a_report_over_the_time_limit_fails_by_name_and_the_others_are_written(
    rule_nlp, monkeypatch
):
    monkeypatch.setattr(rule_nlp, "max_length", 4000)
    records = [
        Record("short-1", long_text(1)),
        Record("long", long_text(60)),
        Record("short-2", long_text(2)),
    ]
    results = list(deidentify_records(rule_nlp, records, "tag", None, time_limit=1e-9))
    assert [r.id for r in results] == ["short-1", "long", "short-2"]
    assert results[0].ok and results[2].ok
    assert results[1].status == "failed: took longer than the time limit (1e-09 s a report)"


def test_a_report_that_runs_out_of_memory_fails_alone():
    import spacy
    from spacy.language import Language

    @Language.component("meddocan_test_out_of_memory")
    def out_of_memory(doc):
        if "ROMPE" in doc.text:
            raise MemoryError()
        return doc

    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_test_out_of_memory")
    nlp.max_length = 400
    texts = {
        "a": "uno dos\n" * 100,
        "b": "uno ROMPE\n" * 100,
        "c": "Texto corto.",
        "d": "ROMPE corto.",
    }
    results = {
        r.id: r
        for r in deidentify_records(nlp, [Record(k, v) for k, v in texts.items()], "tag", None)
    }
    assert results["a"].ok and results["c"].ok
    assert (
        results["b"].status
        == results["d"].status
        == "failed: error in the pipeline component 'meddocan_test_out_of_memory' (MemoryError)"
    )


def test_long_report_equals_its_pieces_one_by_one(rule_nlp, monkeypatch):
    monkeypatch.setattr(rule_nlp, "max_length", 4000)
    limit = piece_limit(rule_nlp)
    assert limit == 2000
    text = long_text(60)
    assert len(text) > 4000  # in one piece, the pipeline would refuse it
    (res,) = deidentify_records(rule_nlp, [Record("r1", text)], "tag", None)
    assert res.ok, res.status
    pieces = pieces_of(text, limit)
    expected = [
        (label, off + s, off + e)
        for off, piece in pieces
        for label, s, e in doc_spans(rule_nlp(piece))
    ]
    assert res.phi == expected and len(expected) >= 4 * 60
    # the output and the entities are those of the pieces, in the original's offsets
    assert res.text == "".join(deidentify(piece, "tag", nlp=rule_nlp).text for _o, piece in pieces)
    for r, (label, s, e) in zip(res.replacements, expected):
        assert (r.label, r.start, r.end) == (label, s, e)
        assert res.text[r.new_start : r.new_end] == f"[{label}]"


def test_surrogates_of_one_report_are_the_same_in_every_piece(rule_nlp, monkeypatch):
    monkeypatch.setattr(rule_nlp, "max_length", 4000)
    text = long_text(60)
    (res,) = deidentify_records(rule_nlp, [Record("r1", text)], "surrogate", KEY)
    assert res.ok, res.status
    by_value = {}
    for r in res.replacements:
        by_value.setdefault(text[r.start : r.end], set()).add(res.text[r.new_start : r.new_end])
    assert by_value["Zorionak"] and len(by_value["Zorionak"]) == 1
    assert len(by_value["Etxeberria Garmendia"]) == 1
    first, last = res.replacements[0], res.replacements[-1]
    assert (
        last.start > 4000 and first.start < 2000
    )  # the same value, in the first and the last piece


def test_a_report_over_a_million_characters_is_written():
    # spaCy's own limit (max_length 1,000,000), with a light pipeline: a blank one and a ruler
    import spacy

    nlp = spacy.blank("es")
    nlp.add_pipe("entity_ruler").add_patterns(
        [{"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": "Zorionak"}]
    )
    text = ("Nombre: Zorionak. " + "x" * 80 + "\n") * 10600  # long tokens: a cheap text to tokenize
    assert len(text) > nlp.max_length == 1_000_000
    (res,) = deidentify_records(nlp, [Record("big", text)], "mask", None)
    assert res.ok, res.status
    assert len(res.text) == len(text) and "Zorionak" not in res.text
    assert len(res.phi) == 10600 and all(text[s:e] == "Zorionak" for _label, s, e in res.phi)


@pytest.mark.parametrize("n", [1, 3])
def test_short_reports_are_not_cut(rule_nlp, n):
    text = long_text(n)
    (res,) = deidentify_records(rule_nlp, [Record("r", text)], "tag", None)
    assert res.phi == doc_spans(rule_nlp(text))


def test_the_api_cuts_a_long_text_as_the_batch_does(rule_nlp, monkeypatch):
    monkeypatch.setattr(rule_nlp, "max_length", 4000)
    text = long_text(30)
    res = deidentify(text, "surrogate", KEY, nlp=rule_nlp, scope="r1")
    (batch,) = deidentify_records(rule_nlp, [Record("r1", text)], "surrogate", KEY)
    assert res.text == batch.text and res.replacements == batch.replacements
