"""Imported at the start of every Python process whose path holds this folder (the Spark
workers of the fail-closed test): registers the raising component, so that the workers can
load a pipeline that holds it."""

import raising_component  # noqa: F401
