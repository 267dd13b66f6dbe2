"""Seeks and pairing (greycircle.lobby.services): who is paired with whom, when, and every
refusal. Time is injected (`now`)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection

from accounts.models import Block
from greycircle import presence
from greycircle.games.clocks import TimeControl
from greycircle.games.errors import GameInvalid, GameNotFound
from greycircle.games.models import Game, GameStatus
from greycircle.lobby import services
from greycircle.lobby.models import Seek, SeekStatus
from greycircle.lobby.selectors import pools_counts
from tests.lobby.conftest import T0

BLITZ = TimeControl(3, 2)
POOL = "circles:3+2:2:rated"


def seek(user, *, seconds: float = 0, **options) -> Seek:
    options.setdefault("time_control", BLITZ)
    return services.seek_create(
        user=user, kind="circles", now=T0 + timedelta(seconds=seconds), **options
    )


def refused(code: str, user, **options) -> None:
    before = Seek.objects.count()
    with pytest.raises(GameInvalid) as caught:
        seek(user, **options)
    assert caught.value.code == code
    assert Seek.objects.count() == before


@pytest.mark.django_db
def test_two_close_seekers_are_paired_at_once_into_a_live_rated_game_in_play(seeker):
    alice, bob = seeker(1500), seeker(1580)
    first = seek(alice)
    assert first.status == SeekStatus.WAITING
    assert first.pool == POOL
    second = seek(bob)
    assert second.status == SeekStatus.MATCHED
    game = Game.objects.get(pk=second.game_id)
    first.refresh_from_db()
    assert first.game_id == game.pk
    assert first.status == SeekStatus.MATCHED
    assert game.status == GameStatus.ACTIVE
    assert game.rated
    assert game.clock_initial_ms == 180_000
    assert {seat.user_id for seat in game.seats.all()} == {alice.pk, bob.pk}
    assert all(seat.joined_at is not None for seat in game.seats.all())
    assert not game.invitations.exists()


@pytest.mark.django_db
def test_seekers_far_apart_wait_until_their_windows_widen(seeker):
    alice, bob = seeker(1500), seeker(1800)
    seek(alice)
    assert seek(bob).status == SeekStatus.WAITING  # 300 apart: ±100 each
    # At 19 s both windows are ±250 (±100 + 3 * 50), still short of 300; at 20 s, ±300.
    assert services.seeks_pair(pool=POOL, now=T0 + timedelta(seconds=19)) == []
    [game] = services.seeks_pair(pool=POOL, now=T0 + timedelta(seconds=20))
    assert {seat.user_id for seat in game.seats.all()} == {alice.pk, bob.pk}


@pytest.mark.django_db
def test_the_closest_in_rating_is_not_required_but_the_longest_waiting_is_served_first(seeker):
    alice, bob, carol = seeker(1500), seeker(2100), seeker(1550)
    seek(alice)
    seek(bob)
    matched = seek(carol, seconds=1)
    assert Game.objects.get(pk=matched.game_id).seats.filter(user=alice).exists()
    assert Seek.objects.get(user=bob).status == SeekStatus.WAITING


@pytest.mark.django_db
def test_anyone_is_paired_after_a_minute(seeker):
    alice, bob = seeker(1000), seeker(2500)
    seek(alice)
    seek(bob)
    assert services.seeks_pair(pool=POOL, now=T0 + timedelta(seconds=59)) == []
    assert len(services.seeks_pair(pool=POOL, now=T0 + timedelta(seconds=60))) == 1


@pytest.mark.django_db
def test_a_custom_range_is_kept_however_long_it_waits(seeker):
    alice, bob = seeker(1500), seeker(1500)
    seek(alice, rating_range=(1700, 2000))
    assert seek(bob).status == SeekStatus.WAITING
    assert services.seeks_pair(pool=POOL, now=T0 + timedelta(hours=1)) == []
    carol = seeker(1800)
    matched = seek(carol, seconds=3600, rating_range=(1400, 1600))
    assert Game.objects.get(pk=matched.game_id).seats.filter(user=alice).exists()


@pytest.mark.django_db
def test_players_across_a_block_are_never_paired(seeker):
    alice, bob, carol = seeker(), seeker(), seeker()
    Block.objects.create(blocker=bob, blocked=alice)
    seek(alice)
    assert seek(bob).status == SeekStatus.WAITING
    assert services.seeks_pair(pool=POOL, now=T0 + timedelta(hours=1)) == []
    matched = seek(carol)
    assert matched.status == SeekStatus.MATCHED
    assert Game.objects.get(pk=matched.game_id).seats.filter(user=alice).exists()


@pytest.mark.django_db
def test_a_deactivated_seeker_is_never_paired_and_their_seek_expires(seeker):
    alice, bob = seeker(), seeker()
    seek(alice)
    alice.is_active = False
    alice.save()
    assert seek(bob).status == SeekStatus.WAITING
    services.lobby_sweep(now=T0 + timedelta(seconds=1))
    assert Seek.objects.get(user=alice).status == SeekStatus.EXPIRED
    assert Seek.objects.get(user=bob).status == SeekStatus.WAITING


@pytest.mark.django_db
def test_four_seats_pair_four_players_at_once(db):
    from tests.factories import UserFactory

    players = [UserFactory() for _ in range(4)]
    seeks = [
        services.seek_create(
            user=player, kind="kingscorner", seats=4, time_control=TimeControl(5, 5), now=T0
        )
        for player in players
    ]
    assert [s.status for s in seeks] == ["waiting"] * 3 + ["matched"]
    game = Game.objects.get(pk=seeks[-1].game_id)
    assert sorted(seat.user_id for seat in game.seats.all()) == sorted(p.pk for p in players)
    assert game.status == GameStatus.ACTIVE


@pytest.mark.django_db
def test_a_correspondence_seek_pairs_into_a_game_of_days_per_move(seeker):
    alice, bob = seeker(), seeker()
    services.seek_create(user=alice, kind="circles", days_per_move=1, rated=False, now=T0)
    matched = services.seek_create(user=bob, kind="circles", days_per_move=1, rated=False, now=T0)
    game = Game.objects.get(pk=matched.game_id)
    assert (game.clock_initial_ms, game.days_per_move, game.rated) == (None, 1, False)
    assert matched.pool == "circles:1d:2:casual"


@pytest.mark.django_db
def test_guests_seek_casual_games_only_and_are_paired_in_them(seeker):
    guest, bob = seeker(is_guest=True), seeker()
    refused("guest_rated", guest)
    seek(guest, rated=False)
    assert seek(bob, rated=False).status == SeekStatus.MATCHED


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("code", "options"),
    [
        ("bad_seats", {"seats": 3}),
        ("bad_time_control", {"days_per_move": 3}),
        ("bad_days_per_move", {"time_control": None, "days_per_move": 2}),
        ("bad_rating_range", {"rating_range": (1900, 1700)}),
        ("bad_rating_range", {"rating_range": (-5, 1700)}),
    ],
)
def test_a_seek_asked_badly_is_refused_and_changes_nothing(seeker, code, options):
    refused(code, seeker(), **options)


@pytest.mark.django_db
def test_an_unknown_kind_is_refused(seeker):
    with pytest.raises(GameInvalid) as caught:
        services.seek_create(user=seeker(), kind="chess", time_control=BLITZ)
    assert caught.value.code == "unknown_kind"


@pytest.mark.django_db
def test_one_seek_per_pool_one_live_at_a_time_and_at_most_five(seeker):
    alice = seeker()
    seek(alice)
    refused("seek_exists", alice)
    refused("live_seek_exists", alice, time_control=TimeControl(5, 0))
    for days, rated in ((1, True), (3, True), (7, True), (1, False)):
        seek(alice, time_control=None, days_per_move=days, rated=rated)
    refused("too_many_seeks", alice, time_control=None, days_per_move=3, rated=False)


@pytest.mark.django_db
def test_no_live_seek_while_playing_a_live_game_but_correspondence_is_fine(seeker):
    alice, bob = seeker(), seeker()
    seek(alice)
    assert seek(bob).status == SeekStatus.MATCHED
    refused("playing_live", alice, time_control=TimeControl(1, 0))
    assert seek(alice, time_control=None, days_per_move=3).status == SeekStatus.WAITING


@pytest.mark.django_db
def test_a_closed_account_cannot_seek(seeker):
    alice = seeker()
    alice.is_active = False
    refused("closed_account", alice)


@pytest.mark.django_db
def test_cancelling_a_seek_and_not_once_it_is_matched(seeker):
    alice, bob, carol = seeker(), seeker(), seeker()
    mine = seek(alice)
    services.seek_cancel(seek_id=mine.pk, user=alice)
    assert seek(bob).status == SeekStatus.WAITING  # alice is no longer there
    matched = seek(carol)
    with pytest.raises(GameInvalid) as caught:
        services.seek_cancel(seek_id=matched.pk, user=carol)
    assert caught.value.code == "not_waiting"
    with pytest.raises(GameNotFound) as caught:
        services.seek_cancel(seek_id=mine.pk, user=bob)
    assert caught.value.code == "not_found"


@pytest.mark.django_db
def test_a_live_seek_expires_when_its_seeker_has_no_socket_past_the_grace(seeker, settings):
    settings.LOBBY_LIVE_SEEK_GRACE_SECONDS = 15
    alice, bob = seeker(), seeker()
    mine = seek(alice)
    by_days = seek(alice, time_control=None, days_per_move=3)
    seek(bob, rating_range=(0, 10))  # waits for nobody here
    presence.presence_socket_closed(user_id=alice.pk)
    services.lobby_sweep(now=T0 + timedelta(seconds=14))
    mine.refresh_from_db()
    assert mine.status == SeekStatus.WAITING
    services.lobby_sweep(now=T0 + timedelta(seconds=15))
    mine.refresh_from_db()
    by_days.refresh_from_db()
    assert mine.status == SeekStatus.EXPIRED
    assert by_days.status == SeekStatus.WAITING  # correspondence seeks stay
    assert Seek.objects.get(user=bob).status == SeekStatus.WAITING  # bob is still here


@pytest.mark.django_db
def test_a_seek_ended_a_day_ago_is_deleted_by_the_sweep_unless_its_game_is_in_play(seeker):
    mine = seek(seeker())
    services.seek_cancel(seek_id=mine.pk, user=mine.user, now=T0)
    by_days = dict(time_control=None, days_per_move=7)
    seek(seeker(), **by_days)
    playing = seek(seeker(), **by_days)
    services.lobby_sweep(now=T0 + timedelta(hours=23))
    assert Seek.objects.filter(pk=mine.pk).exists()
    services.lobby_sweep(now=T0 + timedelta(days=1, seconds=1))
    assert not Seek.objects.filter(pk=mine.pk).exists()
    assert Seek.objects.filter(game_id=playing.game_id).count() == 2
    counts = {pool["pool"]: pool["playing"] for pool in pools_counts()}
    assert counts == {"circles:7d:2:rated": 2}


@pytest.mark.django_db
def test_the_counts_say_who_waits_and_who_plays_per_pool(seeker):
    alice, bob, carol = seeker(), seeker(), seeker()
    seek(alice)
    seek(bob)
    seek(carol, time_control=None, days_per_move=7)
    counts = {pool["pool"]: (pool["waiting"], pool["playing"]) for pool in pools_counts()}
    assert counts == {POOL: (0, 2), "circles:7d:2:rated": (1, 0)}


@pytest.mark.django_db
def test_a_pairing_that_raced_another_one_makes_no_game(seeker, monkeypatch):
    """The seeks a pairing read were matched by another one before it marked them (what SQLite,
    which locks no row, lets happen): it is rolled back, and no seek makes two games."""
    alice, bob = seeker(1500), seeker(2500)
    seek(alice)
    assert seek(bob).status == SeekStatus.WAITING  # too far apart until a minute has passed
    real_game_pair = services.game_pair

    def raced(**arguments):
        game = real_game_pair(**arguments)
        Seek.objects.filter(user=alice).update(status=SeekStatus.MATCHED)  # the other pairing
        return game

    monkeypatch.setattr(services, "game_pair", raced)
    games_before = Game.objects.count()
    assert services.seeks_pair(pool=POOL, now=T0 + timedelta(hours=1)) == []
    assert Game.objects.count() == games_before
    assert Seek.objects.get(user=bob).status == SeekStatus.WAITING


@pytest.mark.django_db
def test_a_group_that_cannot_be_seated_is_left_and_the_pools_others_are_paired(seeker, monkeypatch):
    """A block made between the pool's read and its game (what the read's selector misses
    here): game_pair refuses that group; the other group of the pool still gets its game."""
    alice, bob, carol, dave = seeker(1500), seeker(1500), seeker(2500), seeker(2500)
    for player in (alice, bob, carol, dave):
        seek(player, rating_range=(0, 10))  # nobody fits yet
    Seek.objects.update(rating_min=None, rating_max=None)
    Block.objects.create(blocker=alice, blocked=bob)
    monkeypatch.setattr(services, "block_pairs_among", lambda **_: set())
    [game] = services.seeks_pair(pool=POOL, now=T0)
    assert {seat.user_id for seat in game.seats.all()} == {carol.pk, dave.pk}
    assert set(Seek.objects.filter(status=SeekStatus.WAITING).values_list("user", flat=True)) == {
        alice.pk,
        bob.pk,
    }


needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (DATABASE_URL); CI has it"
)


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_two_seekers_racing_for_one_seek_never_both_get_it(seeker):
    """Bob and carol seek at once, each fitting alice's seek: one game, alice in it once.

    A pairing skips the seeks another holds, so both may find alice's taken and leave the
    pairing to the next round (the sweep's, each second): at most one is paired at once, and
    after the next round exactly one."""
    import threading

    from django.db import connections

    alice, bob, carol = seeker(), seeker(), seeker()
    seek(alice)
    start = threading.Barrier(2)
    results = {}

    def race(user):
        try:
            start.wait()
            results[user.username] = seek(user).status
        finally:
            connections.close_all()

    threads = [threading.Thread(target=race, args=(user,)) for user in (bob, carol)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results.values()) in (["matched", "waiting"], ["waiting", "waiting"])
    services.seeks_pair(pool=POOL, now=T0)
    statuses = Seek.objects.filter(user__in=(bob, carol)).values_list("status", flat=True)
    assert sorted(statuses) == [SeekStatus.MATCHED, SeekStatus.WAITING]
    [game] = Game.objects.all()
    assert list(game.seats.filter(user=alice).values_list("user_id", flat=True)) == [alice.pk]
    assert Seek.objects.get(user=alice).game_id == game.pk
