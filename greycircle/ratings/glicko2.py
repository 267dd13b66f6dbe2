"""The Glicko-2 rating system, as published by Mark E. Glickman.

"Example of the Glicko-2 system" (Glickman, 2022 revision, glicko.net/glicko/glicko2.pdf): each
player has a rating `r`, a rating deviation `rd` (how uncertain `r` is) and a volatility `sigma`
(how erratic their results are). `rate` applies one rating period, steps 1-8 of the paper.
Pure Python, no Django: the ratings app stores what this computes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  # step 2: between the Glicko scale and Glicko-2's
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
# The system constant: how much volatility may change in a period (the paper suggests 0.3-1.2).
TAU = 0.5
CONVERGENCE = 0.000001


@dataclass(frozen=True, slots=True)
class Rating:
    r: float = DEFAULT_RATING
    rd: float = DEFAULT_DEVIATION
    sigma: float = DEFAULT_VOLATILITY


@dataclass(frozen=True, slots=True)
class Result:
    """One game of the period: the opponent's rating before it and the score (1, 0.5 or 0)."""

    opponent: Rating
    score: float


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def rate(player: Rating, results: Sequence[Result], *, tau: float = TAU) -> Rating:
    """`player`'s rating after a period in which they played `results` (none: only the
    deviation grows, step 6)."""
    mu = (player.r - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    if not results:
        return Rating(player.r, math.sqrt(phi * phi + player.sigma**2) * SCALE, player.sigma)
    # Step 3 and 4: the estimated variance v and improvement delta.
    inverse_v = 0.0
    improvement = 0.0
    for result in results:
        mu_j = (result.opponent.r - DEFAULT_RATING) / SCALE
        phi_j = result.opponent.rd / SCALE
        g = _g(phi_j)
        expected = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * expected * (1 - expected)
        improvement += g * (result.score - expected)
    v = 1 / inverse_v
    delta = v * improvement
    sigma = _volatility(phi=phi, sigma=player.sigma, v=v, delta=delta, tau=tau)
    # Steps 6-8.
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(mu_new * SCALE + DEFAULT_RATING, phi_new * SCALE, sigma)


def _volatility(*, phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)
