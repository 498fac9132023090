"""A folder of scanned documents (PDFs, PNG, JPEG and TIFF images): the command line reads it
as any folder (folder.py: each file by its suffix, OCR where it has no text layer); on Spark it
is a source of one row a file, with `binaryFile`: its id, the relative path without its suffix
(as the command line names the file's report), `file`, the relative path, and its text column,
the file's bytes, which `--text-format scan` reads by OCR on the executors (spark/dataframe.py)."""

from . import folder
from .base import Format, SparkColumns, SparkInput, spark_path
from .image import IMAGE_FORMATS

SUFFIXES = (".pdf", *IMAGE_FORMATS)
FILE_COLUMN = "file"


def path_glob() -> str:
    """Hadoop's glob of the scans' file names, in lower and upper case (the glob is
    case-sensitive): `*.{pdf,PDF,png,PNG,...}`."""
    names = [s.lstrip(".") for s in SUFFIXES]
    return "*.{" + ",".join(n for name in names for n in (name, name.upper())) + "}"


def spark_source(spark, path: str, columns: SparkColumns) -> SparkInput:
    from pyspark.sql import functions as F

    frame = (
        spark.read.format("binaryFile")
        .option("pathGlobFilter", path_glob())
        .option("recursiveFileLookup", "true")
        .load(path)
    )
    root = spark_path(spark, path)[1].toString()
    if root.lower().endswith(SUFFIXES):  # one file: its name
        rel = F.regexp_extract(F.col("path"), r"([^/]*)$", 1)
    else:
        rel = F.expr(f"substring(path, {len(root.rstrip('/')) + 2})")
    frame = frame.select(
        F.regexp_replace(rel, r"\.[A-Za-z]+$", "").alias(columns.id),
        rel.alias(FILE_COLUMN),
        F.col("content").alias(columns.text),
    )
    return SparkInput(frame, columns.id, columns.text)


FORMAT = Format("scans", "folder", items=folder.items, spark_source=spark_source)
