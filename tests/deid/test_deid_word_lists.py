"""The Spanish words of the de-identification code are word lists (pipeline/data/es/, read by
meddocan_deid.lexicon), not Python literals: name particles, titles, kinship words, months.
Invented examples."""

import subprocess
import sys
from pathlib import Path

from meddocan_deid.deid import known_phi, tables
from meddocan_deid.deid.surrogates import common, names, person
from meddocan_deid.lexicon import tagged_words, words

ROOT = Path(__file__).resolve().parents[2]


def test_the_sets_come_from_the_word_lists():
    assert (
        names.PARTICLES == set(tagged_words("particles", "name_surrogate"))
        and {"del", "mc"} <= names.PARTICLES
    )
    assert (
        known_phi.STOPWORDS == frozenset(tagged_words("particles", "known_name"))
        and "santa" in known_phi.STOPWORDS
    )
    assert (
        "mc" not in known_phi.STOPWORDS and "santa" not in names.PARTICLES
    )  # the sets differ, on purpose
    assert {"para", "d'"} <= common._LOWER_WORDS and {"con", "sin"} <= person._PREPOSITIONS
    assert names.TITLES == set(words("name_surrogate_titles")) and {"dr", "dña"} <= names.TITLES
    assert ("padre", "madre") in names.KIN_PAIRS and ("yerno", "nuera") in names.KIN_PAIRS
    assert all(len(pair) == 2 for pair in names.KIN_PAIRS)
    assert {"pareja", "materna"} <= names.RELATIVE_WORDS and {
        "ambos",
        "sus",
    } <= names.FUNCTION_WORDS
    assert (
        tables.MONTHS[0] == "enero"
        and tables.MONTHS[11] == "diciembre"
        and len(tables.MONTHS) == 12
    )


def test_the_kinship_and_particle_words_still_work():
    assert names.kinship_kept("su abuela materna") and names.kinship_kept("Sus hermanos")
    assert not names.kinship_kept("su hija Remedios")
    assert "14 de abril de 2031" in tables.date_variants("14/04/2031")
    terms = known_phi.name_terms("Ana de la Fuente")
    assert {"ana", "fuente"} <= set(terms) and not {"de", "la"} & set(
        terms
    )  # particles: never searched alone


def test_no_spanish_word_list_is_left_outside_the_components():
    """The counting script finds word-list literals only in pipeline/ (the components' own)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "experiments" / "count_word_literals.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    files = [line for line in out.splitlines() if line and not line.startswith((" ", "total:"))]
    assert files and all(f.startswith("pipeline/") for f in files), files
