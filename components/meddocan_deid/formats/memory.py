"""Tables in memory (not files): a pandas DataFrame (the Python API, Spark's tests) and rows
given as JSON objects (the service's table request). Their sink is `result`: the same kind of
table back, with the replaced columns and the status column."""

from typing import Any

from .table import Table, _index


class PandasTable(Table):
    def __init__(self, frame):
        self.frame = frame
        self.keys = {str(c): c for c in frame.columns}
        self.columns = list(self.keys)
        _index(self.columns, "the DataFrame")
        self.n = len(frame)
        self._cache: dict[str, list] = {}

    def value(self, i, col):
        values = self._cache.get(col)
        if values is None:
            values = self._cache[col] = self.frame[self.keys[col]].tolist()
        return values[i]

    def result(self, updates, status, status_column):
        import pandas as pd

        out = self.frame.copy()
        for col, values in updates.items():
            out[self.keys[col]] = pd.Series(values, index=out.index, dtype=object)
        out[status_column] = pd.Series(status, index=out.index, dtype=object)
        return out


class RowsTable(Table):
    """Rows given as JSON objects (the service's table request): the columns are the keys in
    the order first seen; a key a row lacks is a missing cell and stays absent in its row."""

    def __init__(self, rows: list[dict[str, Any]], name: str = "rows"):
        self.rows = rows
        self.name = name
        self.columns = list(dict.fromkeys(k for row in rows for k in row))
        self.n = len(rows)

    def value(self, i, col):
        return self.rows[i].get(col)

    def result(self, updates, status, status_column):
        out = []
        for i, row in enumerate(self.rows):
            row = dict(row)
            for col, values in updates.items():
                if col in row:
                    row[col] = values[i]
            row[status_column] = status[i]
            out.append(row)
        return out
