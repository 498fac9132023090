"""Moved to `meddocan_deid.pipeline.ner_vote` (the vote is part of the shipped ensemble
pipeline). This re-export keeps the entry points of installs made before the move working
(setup.cfg now names the new module); importing it registers the same two factories."""

from ..pipeline.ner_vote import NERMembers, NERVote, entity_windows, window_doc  # noqa: F401

__all__ = ["NERMembers", "NERVote", "entity_windows", "window_doc"]
