"""The registry of formats (meddocan_deid/formats/registry.py): every format is a module with a
source and a sink, found by its name or its file's suffix in any case."""

import sys
from pathlib import Path

import pytest

from meddocan_deid.errors import InputError
from meddocan_deid.formats import registry
from meddocan_deid.formats.sources import input_kind


def test_every_format_has_a_source_for_its_kind():
    assert {"txt", "folder", "jsonl", "csv", "tsv", "xlsx", "parquet", "docx", "pdf", "rtf"} <= set(
        registry.FORMATS
    )
    for fmt in registry.FORMATS.values():
        if fmt.kind == "table":
            assert fmt.open_table is not None, fmt.name
        elif fmt.kind == "document":
            assert fmt.read_text is not None, fmt.name
        elif fmt.kind == "interchange":
            # FHIR and HL7 v2 keep their structure: the run's rewriter writes a file back whole
            assert fmt.interchange is not None and callable(fmt.interchange.rewriter), fmt.name
        else:
            assert fmt.items is not None, fmt.name
    # the only document written back as a document; the others become .txt and .ann
    assert [f.name for f in registry.of_kind("document") if f.write_document is not None] == [
        "docx"
    ]


@pytest.mark.parametrize(
    "name,kind",
    [
        ("a.TXT", "txt"),
        ("b.Docx", "docx"),
        ("c.pdf", "pdf"),
        ("d.RTF", "rtf"),
        ("e.csv", "csv"),
        ("f.tab", "tsv"),
        ("g.XLSX", "xlsx"),
        ("h.parquet", "parquet"),
        ("i.jsonl", "jsonl"),
    ],
)
def test_a_file_is_found_by_its_suffix_in_any_case(name, kind):
    assert registry.find(Path(name)).name == kind


def test_documents_and_tables_by_name():
    assert registry.document_kind("x.PDF") == "pdf" and registry.document_kind("x.csv") is None
    assert registry.table_format("x.tsv") == "tsv" and registry.table_format("x.jsonl") is None
    assert registry.find("x.odt") is None


def test_an_unknown_input_names_what_an_input_may_be(tmp_path):
    path = tmp_path / "nota.odt"
    path.write_bytes(b"x")
    with pytest.raises(InputError) as err:
        input_kind(path)
    message = str(err.value)
    assert (
        "nota.odt" in message
        and ".docx, .pdf, .rtf" in message
        and ".csv, .tsv, .xlsx, .parquet" in message
    )
    assert input_kind(tmp_path) == "folder"


def test_a_missing_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)
    assert "documents extra" in registry.get("pdf").missing()
    assert registry.get("txt").missing() is None
