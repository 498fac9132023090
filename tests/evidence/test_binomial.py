"""Exact binomial bounds without scipy, checked against the binomial sum they invert and the
closed forms at the edges."""

import math

import pytest

from meddocan_deid.evidence.binomial import (
    beta_quantile,
    lower_bound,
    regularized_beta,
    sample_size,
    upper_bound,
)


def binomial_cdf(x: int, n: int, p: float) -> float:
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(x + 1))


@pytest.mark.parametrize("x,n", [(0, 60), (1, 60), (3, 60), (12, 60), (59, 60), (7, 300)])
def test_upper_bound_leaves_five_percent_below_x(x, n):
    u = upper_bound(x, n, 0.95)
    assert binomial_cdf(x, n, u) == pytest.approx(0.05, abs=1e-9)
    assert x / n < u < 1


def test_edges_and_closed_forms():
    assert upper_bound(0, 60) == pytest.approx(1 - 0.05 ** (1 / 60), abs=1e-10)
    assert upper_bound(60, 60) == 1.0
    assert lower_bound(0, 60) == 0.0
    assert lower_bound(60, 60) == pytest.approx(0.05 ** (1 / 60), abs=1e-10)
    # I_x(1, 1) is x; I_x(a, 1) is x ** a
    assert regularized_beta(0.3, 1, 1) == pytest.approx(0.3)
    assert regularized_beta(0.3, 4, 1) == pytest.approx(0.3**4)
    assert beta_quantile(0.5, 2, 2) == pytest.approx(0.5, abs=1e-10)


def test_sample_size():
    # 299 clean reports bound the share at 1% (the rule of three gives about 300)
    assert sample_size(0.01) == 299
    assert upper_bound(0, 299) <= 0.01 < upper_bound(0, 298)
    n = sample_size(0.05, rate=0.01)
    assert upper_bound(round(0.01 * n), n) <= 0.05
    assert sample_size(0.05, rate=0.05) is None


@pytest.mark.parametrize("args", [(-1, 10), (11, 10), (0, 0)])
def test_bad_counts(args):
    with pytest.raises(ValueError, match="0 <= x <= n"):
        upper_bound(*args)
