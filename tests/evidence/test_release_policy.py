"""The policy's release targets: `[release]` (certify) and `[tables]` (risk), validated with the
rest of the file, each problem named by its key, and part of the policy's digest."""

import pytest

from meddocan_deid.deid.policy import load_policy, parse_policy
from meddocan_deid.errors import PolicyError

GOOD = """
[release]
max_reports_with_phi = 0.01
confidence = 0.9

[tables]
k = 5
l = 2
[tables.generalise]
age = [10, 20]
date = ["year"]
"""


def test_targets_are_read_and_change_the_digest(tmp_path):
    path = tmp_path / "policy.toml"
    path.write_text(GOOD, encoding="utf-8")
    policy = load_policy(path)
    assert policy.release.max_reports_with_phi == 0.01 and policy.release.confidence == 0.9
    assert (policy.tables.k, policy.tables.l) == (5, 2)
    assert policy.tables.generalise.age == [10, 20]
    assert policy.tables.generalise.postal_code == [3, 2, "*"]  # the default ladder
    assert policy.digest() != parse_policy({}).digest()
    assert parse_policy({}).release is None


@pytest.mark.parametrize(
    "data,message",
    [
        (
            {"release": {"max_reports_with_phi": 1.5}},
            "release.max_reports_with_phi: expected a share",
        ),
        (
            {"release": {"target": 0.1}},
            "release.target: unknown key (allowed: max_reports_with_phi",
        ),
        ({"tables": {"k": 1}}, "tables.k: expected an integer of at least 2"),
        ({"tables": {"generalise": {"date": ["week"]}}}, "tables.generalise.date: 'week' is not"),
        ({"tables": {"generalise": {"age": [5, 5]}}}, "tables.generalise.age: a level is listed"),
        ({"tables": {"generalise": {"zip": [3]}}}, "tables.generalise.zip: unknown key"),
    ],
)
def test_bad_targets_name_the_key(data, message):
    with pytest.raises(PolicyError, match=message.replace("(", r"\(")):
        parse_policy(data, "p.toml")
