"""Importing the package before numpy starts OpenBLAS with one thread (the NER's speed:
docs/experiments/2026-11-27-speed.md); a value the user set, or a numpy
already loaded, is left alone."""

import os
import subprocess
import sys

PROBE = (
    "import os, sys\n"
    "{first}"
    "import meddocan_deid, numpy\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS', 'unset'), len(os.listdir('/proc/self/task')))\n"
)


def run_probe(first: str = "", **env: str) -> list:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    }
    environment.update(env)
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(first=first)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.split()


def test_the_package_first_gives_one_blas_thread():
    setting, threads = run_probe()
    assert setting == "1"
    assert threads == "1"  # no idle OpenBLAS worker beside the main thread


def test_a_value_the_user_set_is_kept():
    assert run_probe(OPENBLAS_NUM_THREADS="2")[0] == "2"


def test_numpy_loaded_first_is_left_alone():
    assert run_probe(first="import numpy\n")[0] == "unset"
