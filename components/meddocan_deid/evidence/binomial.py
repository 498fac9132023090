"""Exact binomial bounds without scipy: the regularized incomplete beta function (a continued
fraction, Lentz's method) and its inverse by bisection.

`upper_bound(x, n, confidence)` is the one-sided Clopper-Pearson upper bound of a proportion
with `x` successes in `n` trials: the p at which P(X <= x | n, p) = 1 - confidence, i.e. the
`confidence` quantile of Beta(x + 1, n - x). `sample_size(target, ...)` is the least n whose
bound is at most `target` when the sample shows `rate` (0: no leak at all)."""

import math

MAX_ITERATIONS = 500
TINY = 1e-300
EPSILON = 1e-15


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (converges fast for x < (a + 1) / (a + b + 2))."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > TINY else TINY)
    h = d
    for m in range(1, MAX_ITERATIONS + 1):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > TINY else TINY)
            c = 1.0 + aa / c
            c = c if abs(c) > TINY else TINY
            h *= d * c
        if abs(d * c - 1.0) < EPSILON:
            break
    return h


def regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the CDF of Beta(a, b) at x (a, b > 0)."""
    if a <= 0 or b <= 0:
        raise ValueError(f"regularized_beta needs a > 0 and b > 0 (got {a}, {b})")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _continued_fraction(a, b, x) / a
    return 1.0 - front * _continued_fraction(b, a, 1.0 - x) / b


def beta_quantile(q: float, a: float, b: float) -> float:
    """The x with I_x(a, b) = q, by bisection (to 1e-12)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"a quantile is between 0 and 1 (got {q})")
    low, high = 0.0, 1.0
    for _ in range(200):
        mid = (low + high) / 2
        if regularized_beta(mid, a, b) < q:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2


def _check(x: int, n: int, confidence: float) -> None:
    if n <= 0 or not 0 <= x <= n:
        raise ValueError(f"a proportion needs 0 <= x <= n and n > 0 (got x={x}, n={n})")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence is between 0 and 1 (got {confidence})")


def upper_bound(x: int, n: int, confidence: float = 0.95) -> float:
    """One-sided exact (Clopper-Pearson) upper bound of a proportion: x of n."""
    _check(x, n, confidence)
    if x == n:
        return 1.0
    return beta_quantile(confidence, x + 1, n - x)


def lower_bound(x: int, n: int, confidence: float = 0.95) -> float:
    """One-sided exact (Clopper-Pearson) lower bound of a proportion: x of n."""
    _check(x, n, confidence)
    if x == 0:
        return 0.0
    return beta_quantile(1.0 - confidence, x, n - x + 1)


def sample_size(
    target: float, confidence: float = 0.95, rate: float = 0.0, max_n: int = 1_000_000
) -> int | None:
    """The least n whose upper bound is at most `target` when round(rate * n) of n are
    positive; None when no n up to `max_n` gets there (a rate at or above the target)."""
    if not 0.0 < target < 1.0:
        raise ValueError(f"the target bound is between 0 and 1 (got {target})")
    if rate >= target:
        return None
    if rate == 0.0:  # closed form: (1 - target) ** n <= 1 - confidence
        return math.ceil(math.log(1.0 - confidence) / math.log1p(-target))

    def ok(n: int) -> bool:
        return upper_bound(round(rate * n), n, confidence) <= target

    high = 1
    while not ok(high):
        high *= 2
        if high > max_n:
            return None
    low = high // 2
    while high - low > 1:  # the bound is not monotone in n step by step: least n found by bisection
        mid = (low + high) // 2
        low, high = (low, mid) if ok(mid) else (mid, high)
    return high
