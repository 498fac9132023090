"""PHI found per passage language (meddocan_deid.evaluation.languages): counts from gold and
predicted spans, and the invented Catalan, Galician and Basque set the measure reads."""

from pathlib import Path

from meddocan_deid.evaluation.formats_set import SourceDoc, read_sources
from meddocan_deid.evaluation.languages import score_languages

SET = Path(__file__).parent / "cooficial_set"


def test_removed_exact_and_spurious_per_language():
    text = "Nom: Pere Soler. Viu a Olot amb la seva filla."
    pere, olot, filla = text.index("Pere Soler"), text.index("Olot"), text.index("filla")
    docs = [
        SourceDoc(
            "ca_01",
            "ca",
            text,
            [
                ("NOMBRE_SUJETO_ASISTENCIA", pere, pere + 10),
                ("TERRITORIO", olot, olot + 4),
                ("FAMILIARES_SUJETO_ASISTENCIA", filla, filla + 5),
            ],
        )
    ]
    predictions = {
        "ca_01": [
            (pere, pere + 10, "NOMBRE_SUJETO_ASISTENCIA"),  # exact
            (olot, olot + 4, "PAIS"),  # removed, not exact
            (0, 3, "INSTITUCION"),  # spurious
        ]
    }
    scores = score_languages(docs, predictions)["ca"]
    assert scores["overall"] == {"n": 3, "removed": 2, "exact": 1, "spurious": 1, "docs": 1}
    assert scores["labels"]["FAMILIARES_SUJETO_ASISTENCIA"] == {"n": 1, "removed": 0, "exact": 0}


def test_the_language_set_has_each_language():
    docs = read_sources(SET)
    by_lang = {d.doctype for d in docs}
    assert by_lang == {"ca", "gl", "eu"}
    assert all(len(d.entities) >= 10 for d in docs)
