"""`python -m meddocan_deid ...`: the `meddocan-deid` command line."""

from .cli import main

main()
