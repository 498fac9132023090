"""A pipeline component that raises on a report holding the word ROMPE (as a broken component
would), for the fail-closed tests."""

from spacy.language import Language

MARKER = "ROMPE"


@Language.component("raises_on_marker")
def raises_on_marker(doc):
    if MARKER in doc.text:
        raise RuntimeError("a component broke")
    return doc
