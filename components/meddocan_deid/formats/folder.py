"""A folder of reports (searched recursively, sorted): a source whose items are its files, each
read by the format its suffix names (`find`, the registry's lookup); the sink mirrors its
relative paths in the output folder. A text or document file is a report, a FHIR or HL7 v2 file
(by its content) an interchange file written back whole under its name; any other file, a
hidden file or folder (listed once, not entered) and a link to a folder (not followed: rglob
does not, so a link loop ends) is an item that is not read, with its reason."""

from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from .base import Format, Item, document_item, interchange_item, safe_stem


def items(
    folder: Path, encoding: str = "utf-8", find: Callable[[Path], Format | None] | None = None
) -> Iterator[Item]:
    if find is None:
        raise ValueError("a folder's items need the registry's lookup of a file's format (find=)")
    seen_ids = set()
    for p in sorted(Path(folder).rglob("*")):
        rel = p.relative_to(folder)
        where = rel.as_posix()
        if any(part.startswith(".") for part in rel.parts[:-1]):
            continue  # inside a hidden folder, which is listed itself
        if rel.name.startswith("."):
            yield Item(
                where, safe_stem(where), where=where, not_read="hidden file or folder, not read"
            )
            continue
        if p.is_symlink() and p.is_dir():
            yield Item(
                where, safe_stem(where), where=where, not_read="link to a folder, not followed"
            )
            continue
        if p.is_dir():
            continue
        fmt = find(p)
        if fmt is None or fmt.kind not in ("text", "document", "interchange"):
            kind = p.suffix.lower() or "no extension"
            hint = (
                "a table: run it alone with --id-column and --text-column"
                if fmt is not None and fmt.kind == "table"
                else "convert it to .txt"
            )
            yield Item(
                where,
                safe_stem(where),
                where=where,
                unsupported=True,
                not_read=f"not a plain-text report ({kind}): {hint}",
            )
            continue
        rid = rel.with_suffix("").as_posix()
        if (
            rid.casefold() in seen_ids
        ):  # `a.txt` beside `a.TXT` or `a.docx`: the second keeps its suffix in its id
            rid = where
        seen_ids.add(rid.casefold())
        stem = "/".join(safe_stem(part) for part in PurePosixPath(rid).parts)
        if fmt.kind == "document":
            yield document_item(rid, stem, p, where, fmt, folder=True)
        elif fmt.kind == "interchange":
            yield interchange_item(rid, where, p, fmt, folder=True)
        else:
            yield Item(rid, stem, path=p, where=where)


FORMAT = Format("folder", "folder", items=items)
