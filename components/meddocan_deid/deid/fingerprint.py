"""The run fingerprint: what makes two runs into one output folder compatible.

Each output folder holds `run_fingerprint.json` with the mode, the policy digest, a
fingerprint of the key (HMAC-SHA256 of a fixed string under the key: it identifies the key
without revealing it), the model name and version, the pipeline's privacy level, whether kinship
words are kept (surrogate runs), the digest of the field keys added for the run (`--extra-patterns`)
and the library version. A run that finds a fingerprint differing in any field refuses to resume
(reports made one way would sit next to reports made another way); `--overwrite` redoes the run and
writes the new fingerprint. The file never holds the key, a text or a path to a report.
"""

import hashlib
import hmac
import json
from dataclasses import asdict, is_dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from ..errors import FingerprintMismatch
from ..files import atomic_write
from .options import DeidOptions, needs_key

FINGERPRINT_NAME = "run_fingerprint.json"
KEY_FINGERPRINT_MESSAGE = b"meddocan-deid key fingerprint v1"
FORMAT = 1
# compared fields, in the order the refusal names them
FIELDS = (
    "mode",
    "policy_digest",
    "key_fingerprint",
    "model_name",
    "model_version",
    "privacy",
    "keep_kinship",
    "field_keys",
    "library_version",
)
# set while an --overwrite run is under way: a resume must not skip reports of the old run
UNFINISHED = "overwrite_unfinished"


def _plain(obj: Any) -> Any:
    """`obj` as JSON-able data (dataclasses, pydantic models, paths, enums, sets)."""
    if is_dataclass(obj) and not isinstance(obj, type):
        return _plain(asdict(obj))
    if hasattr(obj, "model_dump"):  # pydantic v2
        return _plain(obj.model_dump())
    if hasattr(obj, "dict") and callable(obj.dict) and not isinstance(obj, dict):  # pydantic v1
        return _plain(obj.dict())
    if isinstance(obj, Enum):
        return _plain(obj.value)
    if isinstance(obj, Path):
        return obj.as_posix()
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(
            (_plain(v) for v in obj),
            key=lambda v: json.dumps(v, sort_keys=True, ensure_ascii=False),
        )
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    raise TypeError(f"cannot digest a {type(obj).__name__}")


def canonical_json(obj: Any) -> str:
    """Sorted keys, no spaces, UTF-8 characters kept: the same data gives the same string."""
    return json.dumps(
        _plain(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def digest_of(obj: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of `obj`: the policy digest of a run."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def key_fingerprint(key: bytes | None) -> str:
    """HMAC-SHA256(key, fixed string), hex; "none" without a key. Never the key itself."""
    if key is None:
        return "none"
    return hmac.new(bytes(key), KEY_FINGERPRINT_MESSAGE, hashlib.sha256).hexdigest()


def model_identity(nlp, model: str) -> dict[str, str | None]:
    """`lang_name` and `version` from nlp.meta, else the name or path the model came from."""
    meta = getattr(nlp, "meta", {}) or {}
    name = f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_") or str(model)
    version = meta.get("version")
    return {"name": name, "version": None if version is None else str(version)}


def privacy_level(nlp) -> str:
    """The level of the pipeline's `privacy` component; "balanced"
    without one (it changes nothing)."""
    names = getattr(nlp, "pipe_names", ())
    return (
        getattr(nlp.get_pipe("privacy"), "level", "balanced") if "privacy" in names else "balanced"
    )


def kinship_setting(mode: str, options) -> bool | None:
    """`keep_kinship` of a run that may use the surrogate operator; None
    otherwise (it changes nothing)."""
    return bool(getattr(options, "keep_kinship", True)) if needs_key(mode, options) else None


def make_fingerprint(
    *,
    mode: str,
    key: bytes | None,
    policy_digest: str | None,
    nlp,
    model: str,
    library_version: str,
    options=None,
    field_keys: str | None = None,
    keyed: bool = False,
) -> dict[str, Any]:
    """field_keys: digest of the field-key entries added for the run (None: none added);
    keyed: the key shapes the output in every mode (FHIR and HL7 v2 ids, hashes and dates)."""
    ident = model_identity(nlp, model)
    return {
        "format": FORMAT,
        "mode": mode,
        "policy_digest": policy_digest or "none",
        "key_fingerprint": key_fingerprint(key) if mode == "surrogate" or keyed else "none",
        "model_name": ident["name"],
        "model_version": ident["version"],
        "privacy": privacy_level(nlp),
        "keep_kinship": kinship_setting(mode, options if options is not None else DeidOptions()),
        "field_keys": field_keys or "none",
        "library_version": library_version,
    }


def read_fingerprint(output: Path) -> dict[str, Any] | None:
    """The fingerprint stored in `output`, None when there is none."""
    path = Path(output) / FINGERPRINT_NAME
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        raise FingerprintMismatch(
            f"{path}: unreadable run fingerprint; rerun with --overwrite to redo the run "
            "or choose another output folder"
        ) from None
    if not isinstance(data, dict):
        raise FingerprintMismatch(
            f"{path}: not a run fingerprint; rerun with --overwrite or choose another output folder"
        )
    return data


def differences(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """One line per differing field: `mode: 'surrogate' (before) vs 'tag' (now)`; the key
    only as `key differs`."""
    lines = []
    for name in FIELDS:
        before, now = old.get(name), new.get(name)
        if name == "privacy":  # folders written before the setting existed were balanced
            before, now = before or "balanced", now or "balanced"
        if name == "field_keys":  # folders written before the setting existed added none
            before, now = before or "none", now or "none"
        if name == "keep_kinship":
            before, now = _kinship(old), _kinship(new)
            if (
                before is None or now is None
            ):  # not a surrogate run: the mode or the key tells the difference
                continue
        if before == now:
            continue
        if name == "key_fingerprint":
            if old.get(name) == "none" or new.get(name) == "none":
                lines.append(
                    f"key: {'none' if old.get(name) == 'none' else 'a key'} (before) vs "
                    f"{'none' if new.get(name) == 'none' else 'a key'} (now)"
                )
            else:
                lines.append("key differs")
        else:
            lines.append(f"{name}: {before!r} (before) vs {now!r} (now)")
    return lines


def _kinship(fingerprint: dict[str, Any]) -> bool | None:
    """`keep_kinship` of a fingerprint; one written before the setting existed swapped
    kinship words in surrogate runs."""
    if "keep_kinship" in fingerprint:
        return fingerprint["keep_kinship"]
    return False if fingerprint.get("mode") == "surrogate" else None


def _report_files(output: Path) -> int:
    return sum(
        1
        for p in Path(output).rglob("*.txt")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(output).parts)
    )


def check_resume(
    output: Path, new: dict[str, Any], *, overwrite: bool, random_key: bool = False
) -> bool:
    """Raise FingerprintMismatch when a run with fingerprint `new` must not resume into
    `output`. With `overwrite` every report is redone, so any folder is fine; the result says
    whether the folder holds reports of ANOTHER run that this one replaces (the folder is then
    marked unfinished until the run ends, so that a kill midway cannot be resumed by mistake)."""
    output = Path(output)
    if not output.is_dir():
        return False
    old = read_fingerprint(output) if not overwrite else _read_or_none(output)
    n = _report_files(output)
    if overwrite:
        return bool(n) and (old is None or bool(old.get(UNFINISHED)) or bool(differences(old, new)))
    if old is None:
        if n:
            raise FingerprintMismatch(
                f"{output}: holds {n} .txt file{'s' if n != 1 else ''} but no {FINGERPRINT_NAME} "
                "(an older version or another tool made them), so resuming could mix runs; "
                "rerun with --overwrite to redo every report, or choose an empty output folder"
            )
        return False
    if old.get(UNFINISHED):
        raise FingerprintMismatch(
            f"{output}: an --overwrite run into this folder did not finish, so some reports "
            "are from the run before; rerun with --overwrite"
        )
    diff = differences(old, new)
    if diff:
        hint = (
            " (a --random-key run cannot be resumed)"
            if random_key and "key differs" in diff
            else ""
        )
        raise FingerprintMismatch(
            f"{output}: made by another kind of run, will not resume into it{hint}: "
            + "; ".join(diff)
            + ". Rerun with --overwrite to redo every report, or choose another output folder"
        )
    return False


def _read_or_none(output: Path) -> dict[str, Any] | None:
    try:
        return read_fingerprint(output)
    except FingerprintMismatch:  # unreadable: --overwrite replaces it
        return None


def write_fingerprint(
    output: Path, fingerprint: dict[str, Any], *, unfinished: bool = False
) -> None:
    data = dict(fingerprint)
    if unfinished:
        data[UNFINISHED] = True
    atomic_write(
        Path(output) / FINGERPRINT_NAME, json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    )
