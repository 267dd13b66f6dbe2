"""Glicko-2 against the worked example of Glickman's paper ("Example of the Glicko-2 system")."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from greycircle.ratings.glicko2 import Rating, Result, rate


def test_the_papers_worked_example():
    # A player rated 1500 (RD 200, volatility 0.06) beats a 1400 (RD 30) and loses to a 1550
    # (RD 100) and a 1700 (RD 300), with tau 0.5.
    player = Rating(1500, 200, 0.06)
    results = [
        Result(Rating(1400, 30), 1),
        Result(Rating(1550, 100), 0),
        Result(Rating(1700, 300), 0),
    ]

    after = rate(player, results, tau=0.5)

    assert after.r == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.sigma == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation():
    after = rate(Rating(1500, 200, 0.06), [])

    assert after.r == 1500
    assert after.rd == pytest.approx(200.271, abs=0.001)  # sqrt(200^2 + (0.06 * 173.7178)^2)
    assert after.sigma == 0.06


ratings = st.builds(
    Rating,
    r=st.floats(800, 2800),
    rd=st.floats(30, 350),
    sigma=st.floats(0.03, 0.09),
)


@given(player=ratings, opponent=ratings)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(player, opponent):
    assert rate(player, [Result(opponent, 1)]).r >= player.r
    assert rate(player, [Result(opponent, 0)]).r <= player.r
