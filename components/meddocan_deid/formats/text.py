"""A plain-text report, `.txt` in any case (`.TXT`): a source (one report, its id the file's
stem) and, through the output folder (engine/output.py), the sink of every report: its
de-identified `.txt` and a BRAT `.ann`. Its bytes are read as UTF-8 when they are valid UTF-8,
else in the encoding charset-normalizer detects with confidence, else in the fallback. On Spark,
a `.txt` file or a folder of them (recursive) is a source: one row a file, its id the relative
path without `.txt` (as the batch command names it), its text the file's bytes."""

from collections.abc import Iterator
from pathlib import Path

from .base import Format, Item, SparkColumns, SparkInput, safe_stem, spark_path
from .encodings import decode_bytes


def items(path: Path, encoding: str = "utf-8", find=None) -> Iterator[Item]:
    path = Path(path)
    yield Item(path.stem, safe_stem(path.stem), path=path, where=path.name)


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    return decode_bytes(data, encoding)[0]


def spark_source(spark, path: str, columns: SparkColumns) -> SparkInput:
    from pyspark.sql import functions as F

    frame = (
        spark.read.format("binaryFile")
        .option("pathGlobFilter", "*.txt")
        .option("recursiveFileLookup", "true")
        .load(path)
    )
    root = spark_path(spark, path)[1].toString()
    if root.lower().endswith(".txt"):  # one file: the id is its name
        rel = F.regexp_extract(F.col("path"), r"([^/]*)$", 1)
    else:
        rel = F.expr(f"substring(path, {len(root.rstrip('/')) + 2})")
    frame = frame.select(
        F.regexp_replace(rel, r"\.txt$", "").alias(columns.id),
        F.col("content").alias(columns.text),
    )
    return SparkInput(frame, columns.id, columns.text)


FORMAT = Format(
    "txt", "text", (".txt",), read_text=read_text, items=items, spark_source=spark_source
)
