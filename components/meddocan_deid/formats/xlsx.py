"""Excel `.xlsx` tables (openpyxl; the `tables` extra): a source and a sink. One sheet (the
first, or `--sheet`), formatting kept; the other sheets are not copied, the workbook's own
properties that may name a person are emptied, links and comments of replaced cells removed."""

from pathlib import Path

from ..errors import InputError
from .base import Format
from .table import Table, _blank, _index, _write_atomic, need_module


class XlsxTable(Table):
    def __init__(self, path: Path, sheet: str | None):
        need_module("xlsx")
        from openpyxl import load_workbook

        self.path = Path(path)
        self.name = self.path.name
        try:
            self.wb = load_workbook(self.path)
        except Exception as err:  # noqa: BLE001 - zipfile, XML and openpyxl errors on a damaged file
            raise InputError(
                f"{path}: not a readable Excel workbook ({type(err).__name__})"
            ) from None
        names = self.wb.sheetnames
        if sheet is not None and sheet not in names:
            # the sheet names are not repeated: a sheet may be named after a patient
            raise InputError(
                f"{path}: no sheet of that name (the workbook has {len(names)} sheets)"
            )
        self.ws = self.wb[sheet] if sheet is not None else self.wb.worksheets[0]
        header = [c.value for c in next(self.ws.iter_rows(min_row=1, max_row=1), ())]
        while header and _blank(header[-1]):
            header.pop()
        if not header:
            raise InputError(
                f"{path}: sheet {self.ws.title!r} has no header row (the column names in row 1)"
            )
        for j, h in enumerate(header):
            if _blank(h):
                raise InputError(
                    f"{path}: sheet {self.ws.title!r}: column {j + 1} has no name in row 1"
                )
        self.columns = [str(h).strip() for h in header]
        self.index = _index(self.columns, path)
        last = 1
        for row in self.ws.iter_rows(min_row=2, max_col=len(self.columns)):
            if any(not _blank(c.value) for c in row):
                last = row[0].row
        self.n = last - 1

    def value(self, i, col):
        v = self.ws.cell(row=i + 2, column=self.index[col] + 1).value
        return None if _blank(v) else v

    def where(self, i):
        return f"row {i + 2}"

    def write(self, path, updates, status, status_column, keep=()):
        ws = self.ws
        for col, values in updates.items():
            j = self.index[col] + 1
            for i, v in enumerate(values):
                cell = ws.cell(row=i + 2, column=j)
                cell.value = v
                cell.hyperlink = None  # a mailto: or a link to a record would keep the value
                cell.comment = None
        # the workbook's own properties may name the author or the patient
        props = self.wb.properties
        for field in (
            "creator",
            "lastModifiedBy",
            "title",
            "subject",
            "description",
            "keywords",
            "category",
            "identifier",
            "contentStatus",
        ):
            setattr(props, field, None)
        ws._pivots = []  # a pivot cache holds the original cells
        j = len(self.columns) + 1
        head = ws.cell(row=1, column=j)
        head.value = status_column
        head._style = ws.cell(row=1, column=j - 1)._style  # the header's look
        for i, s in enumerate(status):
            ws.cell(row=i + 2, column=j).value = s
        for other in list(self.wb.worksheets):  # other sheets are not de-identified: not copied
            if other is not ws:
                self.wb.remove(other)
        _write_atomic(path, self.wb.save)


def open_table(path: Path, *, sheet: str | None = None, encoding: str = "utf-8") -> Table:
    return XlsxTable(path, sheet)


FORMAT = Format(
    "xlsx", "table", (".xlsx",), modules=("openpyxl",), extra="tables", open_table=open_table
)
