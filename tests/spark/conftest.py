"""The Spark tests' shared fixtures: one local SparkSession for the whole test session (a JVM
start is the slow part); the executors' model is `model_dir` (tests/conftest.py)."""

import os

import pytest


@pytest.fixture(scope="session")
def load_log(tmp_path_factory):
    """The folder where each Python worker logs the model paths it loads."""
    return tmp_path_factory.mktemp("loads")


@pytest.fixture(scope="session")
def spark(load_log):
    from meddocan_deid.spark import LOAD_LOG_ENV, make_session

    os.environ[LOAD_LOG_ENV] = str(load_log)  # inherited by the Python workers of a new JVM
    # and given to them through the conf too: an earlier test may have started the JVM
    session = make_session(
        "local[2]",
        app_name="meddocan-deid-tests",
        conf={
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "2",
            f"spark.executorEnv.{LOAD_LOG_ENV}": str(load_log),
        },
    )
    yield session
    session.stop()
    os.environ.pop(LOAD_LOG_ENV, None)
