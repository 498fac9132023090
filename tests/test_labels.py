"""The label table (data/labels.tsv, meddocan_deid.labels): one home for each label's facts,
which the modules that use them read rather than write out."""

import ast
import configparser
import importlib.util
from pathlib import Path

import pytest
import spacy

import meddocan_deid
from meddocan_deid import LABELS, labels
from meddocan_deid.deid import known_phi, operators, review, surrogates
from meddocan_deid.labels import LabelTableError, labels_with, read_table
from meddocan_deid.lexicon import NAME_LABELS
from meddocan_deid.presidio_entities import (
    PRESIDIO_ENTITIES,
    VALUE_CHECKS,
    VALUE_ENTITIES,
    presidio_entity,
)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(meddocan_deid.__file__).parent
# the modules that held these facts before the table; a label's name
# in them now is a use, not a fact
READERS = (
    "constants.py",
    "presidio_entities.py",
    "lexicon.py",
    "deid/review.py",
    "deid/surrogates/__init__.py",
    "deid/operators.py",
    "deid/known_phi.py",
)


def test_the_table_holds_the_29_meddocan_labels_once_each():
    assert len(LABELS) == 29 == len(set(LABELS))
    assert LABELS[0] == "NOMBRE_SUJETO_ASISTENCIA" and LABELS[-1] == "OTRO_NUMERO_IDENTIF"
    assert tuple(labels.FACTS) == LABELS


def test_each_fact_is_read_from_the_table():
    assert PRESIDIO_ENTITIES == labels.PRESIDIO and PRESIDIO_ENTITIES["HOSPITAL"] == "ORGANIZATION"
    assert VALUE_ENTITIES["ID_SUJETO_ASISTENCIA"] == ("ES_NIE", "ES_NIF", "IBAN_CODE", "NRP")
    assert all(name in VALUE_CHECKS for names in VALUE_ENTITIES.values() for name in names)
    assert presidio_entity("ID_SUJETO_ASISTENCIA", "12345678Z") == "ES_NIF"  # a valid DNI
    assert presidio_entity("ID_SUJETO_ASISTENCIA", "NHC 4471") == "ID"
    colours = review.label_colors()
    assert (
        colours["NOMBRE_SUJETO_ASISTENCIA"] == "#f4a3a3"
        and colours["PROFESION"] == "hsl(210, 55%, 85%)"
    )
    assert set(colours) == set(LABELS) and len(set(colours.values())) == 29
    relatives = surrogates.GENERATORS["FAMILIARES_SUJETO_ASISTENCIA"]
    assert relatives.__wrapped__ is surrogates.names.relatives  # a Basque case suffix put back
    assert (
        surrogates.GENERATORS["NUMERO_FAX"].__wrapped__ is surrogates.identifiers.phones
    )  # in words too
    assert set(surrogates.GENERATORS) == set(LABELS)
    assert surrogates.POLICY_KEPT == ("EDAD_SUJETO_ASISTENCIA", "SEXO_SUJETO_ASISTENCIA")
    assert operators.DIGIT_RULE_KINDS == {
        "FECHAS": "date",
        "NUMERO_TELEFONO": "phone",
        "NUMERO_FAX": "phone",
    }
    assert NAME_LABELS == (
        "NOMBRE_SUJETO_ASISTENCIA",
        "NOMBRE_PERSONAL_SANITARIO",
        "FAMILIARES_SUJETO_ASISTENCIA",
    )
    ids = [label for label in LABELS if known_phi.is_id_label(label)]
    assert ids == [
        label
        for label in LABELS
        if label.startswith(("ID_", "NUMERO_", "IDENTIF_", "OTRO_NUMERO_"))
    ]
    assert not known_phi.is_id_label("FECHAS") and known_phi.is_name_label(
        "FAMILIARES_SUJETO_ASISTENCIA"
    )


def test_no_reader_writes_out_a_label_fact():
    """No dict keyed by a label and no tuple of labels in the modules that read the table."""
    for rel in READERS:
        tree = ast.parse((PACKAGE / rel).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            keys = (
                node.keys
                if isinstance(node, ast.Dict)
                else node.elts
                if isinstance(node, (ast.Tuple, ast.Set))
                else []
            )
            named = [k.value for k in keys if isinstance(k, ast.Constant) and k.value in LABELS]
            assert len(named) < 2, (rel, node.lineno, named)


def test_groups_are_read_from_the_table_in_its_order():
    assert labels_with("place") == ("CALLE", "TERRITORIO", "PAIS")
    assert labels_with("name") == ("NOMBRE_SUJETO_ASISTENCIA", "NOMBRE_PERSONAL_SANITARIO")
    assert labels_with("phone") == ("NUMERO_TELEFONO", "NUMERO_FAX")
    assert labels_with("care_centre") == ("HOSPITAL", "CENTRO_SALUD")
    # a union, in the table's order, each label once
    assert labels_with("organisation", "care_centre", "employer") == (
        "OTROS_SUJETO_ASISTENCIA",
        "HOSPITAL",
        "INSTITUCION",
        "CENTRO_SALUD",
    )
    assert labels.FACTS["HOSPITAL"].groups == {"organisation", "care_centre"}
    assert labels.FACTS["EDAD_SUJETO_ASISTENCIA"].groups == frozenset()


def test_the_components_read_their_groups_from_the_table():
    from meddocan_deid import country_data
    from meddocan_deid.deid.surrogates import id_validity
    from meddocan_deid.pipeline import dictated_codes, number_words

    assert id_validity.PHONE_LABELS == dictated_codes.PHONE_LABELS == labels_with("phone")
    assert country_data.CENTRE_LABELS == labels_with("care_centre")
    assert number_words.PATIENT_NAMES == labels_with("name")
    nlp = spacy.blank("es")
    edges = nlp.get_factory_meta("meddocan_entity_edges").default_config
    assert edges["title_labels"] == list(labels_with("name"))
    assert set(edges["name_labels"]) == {
        "HOSPITAL",
        "INSTITUCION",
        "CENTRO_SALUD",
        "OTROS_SUJETO_ASISTENCIA",
    }


@pytest.mark.parametrize("groups", [("plaec",), ("place", "phones"), ()])
def test_an_unknown_group_is_refused_with_the_known_ones(groups):
    with pytest.raises(LabelTableError, match="no label is in group .*the groups are care_centre"):
        labels_with(*groups)


def _literal_counter():
    spec = importlib.util.spec_from_file_location(
        "count_label_literals", ROOT / "experiments" / "count_label_literals.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_module_writes_out_a_label_group_but_as_a_commented_choice(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["count_label_literals.py", str(PACKAGE)])
    _literal_counter().main()
    out = capsys.readouterr().out
    assert "total: 0 literals naming 2+ labels in 0 files" in out


def test_the_counter_accepts_only_a_named_constant_under_the_marker(tmp_path):
    counter = _literal_counter()
    source = (
        "# label choice: a rule of its own\n"
        "# (a second line)\n"
        'CHOSEN = ("CALLE", "PAIS")\n'
        "# the places\n"
        'PLACES = ("CALLE", "PAIS")\n'
        "# label choice: not a constant\n"
        'places = {"CALLE": 1, "PAIS": 2}\n'
    )
    tree = ast.parse(source)
    lines = source.splitlines()
    chosen = [
        stmt.targets[0].id
        for stmt in tree.body
        if isinstance(stmt, ast.Assign) and counter.chosen_constant(stmt, lines)
    ]
    assert chosen == ["CHOSEN"]
    assert len(counter.literal_nodes(tree, set(LABELS))) == 3


def test_the_table_is_package_data():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    patterns = cfg["options.package_data"]["meddocan_deid"].replace(",", " ").split()
    assert any(Path("data/labels.tsv").match(p) for p in patterns)


@pytest.mark.parametrize(
    "edit, problem",
    [
        (
            lambda rows: rows[:2]
            + [rows[2].replace("\tno\tno\t-\tyes", "\tmaybe\tno\t-\tyes")]
            + rows[3:],
            "yes or no",
        ),
        (lambda rows: rows + [rows[-1]], "listed twice"),
        (lambda rows: [rows[0].replace("colour", "color")] + rows[1:], "header"),
        (lambda rows: rows[:2] + [rows[2].rsplit("\t", 1)[0]] + rows[3:], "columns"),
    ],
)
def test_a_malformed_table_is_refused_with_its_row(tmp_path, edit, problem):
    rows = [
        line
        for line in labels.TABLE.read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    path = tmp_path / "labels.tsv"
    path.write_text("\n".join(edit(rows)) + "\n", encoding="utf-8")
    with pytest.raises(LabelTableError, match=problem):
        read_table(path)
