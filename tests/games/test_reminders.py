"""Reminding the player to move: limits per sender and recipient across games, a daily number,
never across a block, never a computer, and no limit while Redis is down."""

import pytest

from accounts.models import Block
from greycircle.games import reminders as reminders_service
from greycircle.games import services
from greycircle.games.errors import GameInvalid
from greycircle.games.reminders import game_poke
from greycircle.games.services import SeatSpec
from tests.factories import UserFactory, accept_invitations, game_started

pytestmark = pytest.mark.usefixtures("tictactoe")


@pytest.fixture
def reminders(monkeypatch) -> list[tuple[int, int, str]]:
    """The reminders sent: (recipient id, game id, sender's username)."""
    sent: list[tuple[int, int, str]] = []

    def notify(*, user_id, event, **data):
        if event == "reminder":
            sent.append((user_id, data["game"], data["by"]))

    monkeypatch.setattr("greycircle.games.events.notify", notify)
    return sent


def waiting_on(player, *others):
    """A game of `player` against `others` that waits for `player` (the creator moves first)."""
    return game_started(
        creator=player, kind="tictactoe", opponents=[SeatSpec(user=other) for other in others]
    )


@pytest.mark.django_db
def test_a_reminder_limit_holds_across_games_between_the_same_two_players(alice, bob, reminders):
    first, second = waiting_on(alice, bob), waiting_on(alice, bob)

    game_poke(game_id=first.pk, user=bob)
    with pytest.raises(GameInvalid) as refused:
        game_poke(game_id=second.pk, user=bob)

    assert reminders == [(alice.pk, first.pk, "bob")]
    assert refused.value.code == "poke_too_soon"
    assert 290 <= refused.value.extra["retry_after"] <= 300
    assert "again in 5 minutes" in refused.value.detail
    # A rematch is a new game too: it starts no count afresh.
    services.game_resign(game_id=first.pk, user=alice)
    rematch = services.game_rematch(game_id=first.pk, user=bob)  # bob starts it
    accept_invitations(rematch.pk)
    services.move_submit(game_id=rematch.pk, user=bob, move={"cell": 0}, expected_version=1)
    with pytest.raises(GameInvalid):
        game_poke(game_id=rematch.pk, user=bob)


@pytest.mark.django_db
def test_a_reminder_limits_only_that_sender_to_that_recipient(alice, bob, carol, reminders):
    game_poke(game_id=waiting_on(alice, bob).pk, user=bob)

    game_poke(game_id=waiting_on(alice, carol).pk, user=carol)  # another sender
    game_poke(game_id=waiting_on(carol, bob).pk, user=bob)  # another recipient
    game_poke(game_id=waiting_on(bob, alice).pk, user=alice)  # the other way round

    assert [(to, by) for to, _, by in reminders] == [
        (alice.pk, "bob"),
        (alice.pk, "carol"),
        (carol.pk, "bob"),
        (bob.pk, "alice"),
    ]


@pytest.mark.django_db
def test_a_sender_has_a_daily_number_of_reminders_for_everyone(bob, reminders, monkeypatch):
    monkeypatch.setattr(reminders_service, "POKES_PER_DAY", 2)
    games = [waiting_on(UserFactory(), bob) for _ in range(3)]

    game_poke(game_id=games[0].pk, user=bob)
    game_poke(game_id=games[1].pk, user=bob)
    with pytest.raises(GameInvalid) as refused:
        game_poke(game_id=games[2].pk, user=bob)

    assert len(reminders) == 2
    assert refused.value.code == "poke_too_soon"
    assert "You have sent 2 reminders today" in refused.value.detail
    assert 0 < refused.value.extra["retry_after"] <= 86400
    # The refused reminder took no slot of its own with that player: only the day's count holds.
    monkeypatch.setattr(reminders_service, "POKES_PER_DAY", 3)
    game_poke(game_id=games[2].pk, user=bob)
    assert len(reminders) == 3


@pytest.mark.django_db
@pytest.mark.parametrize("blocker", ["recipient", "sender"])
def test_nobody_reminds_across_a_block_either_way(alice, bob, blocker, reminders):
    game = waiting_on(alice, bob)
    if blocker == "recipient":
        Block.objects.create(blocker=alice, blocked=bob)
    else:
        Block.objects.create(blocker=bob, blocked=alice)

    with pytest.raises(GameInvalid) as refused:
        game_poke(game_id=game.pk, user=bob)

    assert refused.value.code == "cannot_remind"
    # The same words whoever blocked whom: the block is not revealed.
    assert refused.value.detail == "You cannot remind alice now."
    assert reminders == []


@pytest.mark.django_db
def test_a_refused_reminder_counts_against_no_limit(alice, bob, reminders):
    game = waiting_on(alice, bob)
    block = Block.objects.create(blocker=alice, blocked=bob)
    with pytest.raises(GameInvalid):
        game_poke(game_id=game.pk, user=bob)
    block.delete()

    game_poke(game_id=game.pk, user=bob)
    assert len(reminders) == 1


@pytest.mark.django_db
def test_a_computer_is_never_reminded(alice, reminders):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    services.move_submit(game_id=game.pk, user=alice, move={"cell": 4}, expected_version=1)

    with pytest.raises(GameInvalid) as refused:
        game_poke(game_id=game.pk, user=alice)

    assert refused.value.code == "nobody_to_poke"
    assert reminders == []


@pytest.mark.django_db
def test_reminders_are_not_limited_while_redis_is_down(alice, bob, reminders, monkeypatch):
    # The documented degraded mode: the cache fails open, so the limits do too.
    from greycircle.runtime.cache import ResilientRedisCache

    down = ResilientRedisCache(
        "redis://127.0.0.1:1/0", {"OPTIONS": {"socket_connect_timeout": 0.2}}
    )
    monkeypatch.setattr(reminders_service, "cache", down)
    game = waiting_on(alice, bob)

    game_poke(game_id=game.pk, user=bob)
    game_poke(game_id=game.pk, user=bob)

    assert len(reminders) == 2
