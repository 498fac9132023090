"""Input and output formats, each a source and its sink in a module of its own, found through
the registry (formats/registry.py): a text file (`text`), a folder (`folder`), JSONL (`jsonl`:
reports, or a table), CSV, TSV, Excel `.xlsx` and Parquet tables (`csv`, `tsv`, `xlsx`,
`parquet`; `memory`: a DataFrame or rows in memory), Word `.docx`, PDF and RTF documents
(`docx`, `pdf`, `rtf`). `sources` reads any input through the registry; engine/ runs it.

Nothing is imported here: deid/ reads its encodings from formats/encodings.py, and the
registry imports deid/ back (JSONL reports carry known identifiers).
"""
