"""The rating window and the groups of a pool (greycircle.lobby.pairing), on plain seeks."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from greycircle.lobby.pairing import groups_of, seeks_fit, window_of
from tests.lobby.conftest import T0


@dataclass
class S:
    pk: int
    user_id: int
    rating: float
    created_at: datetime = T0
    rating_min: int | None = None
    rating_max: int | None = None


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_the_window_starts_at_100_widens_by_50_each_5_s_up_to_500_then_anyone():
    seek = S(1, 1, 1500)
    assert window_of(seek, now=T0) == (1400, 1600)
    assert window_of(seek, now=at(4.9)) == (1400, 1600)
    assert window_of(seek, now=at(5)) == (1350, 1650)
    assert window_of(seek, now=at(40)) == (1000, 2000)
    assert window_of(seek, now=at(59)) == (1000, 2000)
    low, high = window_of(seek, now=at(60))
    assert low < -10_000
    assert high > 10_000


def test_a_custom_range_does_not_widen():
    seek = S(1, 1, 1500, rating_min=1700, rating_max=1900)
    assert window_of(seek, now=T0) == window_of(seek, now=at(600)) == (1700, 1900)


def test_two_seeks_fit_only_if_each_accepts_the_other():
    wide = S(1, 1, 1500, created_at=at(-40))  # ±500 by now
    fresh = S(2, 2, 1800)  # ±100
    assert not seeks_fit(wide, fresh, now=T0)
    assert seeks_fit(wide, S(3, 3, 1590), now=T0)
    assert not seeks_fit(S(4, 4, 1500), S(5, 4, 1500), now=T0)  # never oneself


def test_groups_serve_the_longest_waiting_first_and_take_no_seek_twice():
    seeks = [S(1, 1, 1500, at(-1)), S(2, 2, 1550, at(0)), S(3, 3, 1450, at(0)), S(4, 4, 2000)]
    [group] = groups_of(seeks, seats=2, now=T0)
    assert [seek.pk for seek in group] == [1, 2]
    three = groups_of(seeks, seats=3, now=T0)
    assert [[seek.pk for seek in group] for group in three] == [[1, 2, 3]]


def test_groups_leave_out_pairs_across_a_block():
    seeks = [S(1, 1, 1500), S(2, 2, 1500), S(3, 3, 1500)]
    [group] = groups_of(seeks, seats=2, now=T0, blocks={frozenset((1, 2))})
    assert [seek.pk for seek in group] == [1, 3]
    assert groups_of(seeks, seats=3, now=T0, blocks={frozenset((2, 3))}) == []
