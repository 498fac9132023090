"""The audit trail: an append-only JSONL log, hash-chained, of every run and every service
request (chain.py: `AuditLog`; verify.py: `verify_log`, `verify_target`).

Each line is one JSON object with its place (`seq`, from 1) and the SHA-256 of the line before
it (`prev`; the first line: 64 zeros), so that an edited, removed or reordered line breaks the
chain where it happened. A line records who (the operator's login, or a service token's id:
a digest, never the token), when, the mode, the policy digest, the model, the key fingerprint
(never the key), the digests of the input and the output, the counts and the outcome; never a
text, a path to a report or an identifier of a patient. run.py makes a run's line,
service.py a request's.
"""

from .chain import AUDIT_ENV, AUDIT_NAME, GENESIS, AuditError, AuditLog, line_digest
from .verify import VerifyResult, verify_log, verify_target

__all__ = [
    "AUDIT_ENV",
    "AUDIT_NAME",
    "GENESIS",
    "AuditError",
    "AuditLog",
    "VerifyResult",
    "line_digest",
    "verify_log",
    "verify_target",
]
