"""Parquet tables (pyarrow; the `tables` extra): a source and a sink; also a pyarrow Table in
memory (`ArrowTable(table)`). The replaced columns become strings. On Spark, a Parquet file or
folder is a source (its own schema; the patient column used when it has one) and a sink."""

from pathlib import Path

from ..errors import InputError
from .base import Format, SparkColumns, SparkInput, SparkSink
from .table import Table, _index, _write_atomic, need_module


class ArrowTable(Table):
    def __init__(self, table, name: str = "<table>"):
        self.table = table
        self.name = name
        self.columns = list(table.column_names)
        _index(self.columns, name)
        self.n = table.num_rows
        self._cache: dict[str, list] = {}

    @classmethod
    def read(cls, path: Path) -> "ArrowTable":
        need_module("parquet")
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except Exception as err:  # noqa: BLE001 - pyarrow's errors on a damaged file
            raise InputError(
                f"{path}: not a readable Parquet file ({type(err).__name__})"
            ) from None
        return cls(table, Path(path).name)

    def value(self, i, col):
        values = self._cache.get(col)
        if values is None:
            values = self._cache[col] = self.table.column(col).to_pylist()
        return values[i]

    def result(self, updates, status, status_column):
        import pyarrow as pa

        table = self.table
        for col, values in updates.items():
            j = table.schema.get_field_index(col)
            old = table.schema.field(j)
            table = table.set_column(
                j, pa.field(col, pa.string(), True, old.metadata), pa.array(values, pa.string())
            )
        return table.append_column(
            pa.field(status_column, pa.string(), False), pa.array(status, pa.string())
        )

    def write(self, path, updates, status, status_column, keep=()):
        import pyarrow.parquet as pq

        table = self.result(updates, status, status_column)
        _write_atomic(path, lambda tmp: pq.write_table(table, tmp))


def open_table(path: Path, *, sheet=None, encoding: str = "utf-8") -> Table:
    return ArrowTable.read(path)


def spark_source(spark, path: str, columns: SparkColumns) -> SparkInput:
    frame = spark.read.parquet(path)
    patient = columns.patient if columns.patient in frame.columns else None
    return SparkInput(frame, columns.id, columns.text, patient)


def spark_write(frame, path: str, *, overwrite: bool) -> None:
    frame.write.mode("overwrite" if overwrite else "errorifexists").format("parquet").save(path)


def spark_read(spark, path: str, id_column: str, status_column: str):
    return spark.read.parquet(path)


FORMAT = Format(
    "parquet",
    "table",
    (".parquet",),
    modules=("pyarrow",),
    extra="tables",
    open_table=open_table,
    spark_source=spark_source,
    spark_sink=SparkSink(spark_write, spark_read),
)
