"""Evaluation: BRAT I/O, the MEDDOCAN metrics, the spaCy scorer, model runs on a DocBin
and the reports (scores, error table, BRAT export)."""
