"""The language of each line of a text, from the words that mark one language (Spanish,
Catalan, Galician, Basque). Invented texts."""

from meddocan_deid.passage_language import language_at, passages, text_language


def _langs(text):
    return [(text[p.start : p.end], p.lang) for p in passages(text)]


def test_each_line_has_its_language():
    text = (
        "La paciente tiene fiebre desde ayer.\n"
        "La seva filla diu que també té tos.\n"
        "A súa nai non vén hoxe.\n"
        "Bere aitak ez du sukarra izan."
    )
    assert [lang for _line, lang in _langs(text)] == ["es", "ca", "gl", "eu"]


def test_a_line_without_marks_takes_its_paragraph_and_then_the_text():
    text = "Nom: Pere Soler\nViu amb la seva dona i és jubilat.\n\nTA 130/80"
    found = _langs(text)
    assert found[0] == ("Nom: Pere Soler", "ca")  # its paragraph is Catalan
    assert found[-1] == ("TA 130/80", "ca")  # no paragraph vote: the text's


def test_no_mark_at_all_is_spanish():
    assert text_language("TA 130/80, FC 72") == "es"
    assert text_language("hogeita hiru") == "es"  # numbers alone mark no language
    assert text_language("bere alabak hogeita hiru urte ditu") == "eu"


def test_language_at_an_offset():
    text = "Vive en Lugo.\nEla vive coa súa nai."
    found = passages(text)
    assert language_at(found, text.index("nai")) == "gl"
    assert language_at(found, 0) == "gl"  # a line without marks: its paragraph's
    assert language_at([], 5) == "es"
