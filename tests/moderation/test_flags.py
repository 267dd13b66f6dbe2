"""Flags are raised by the apps that see a pattern: one open flag per pattern, brought up to date
while it goes on."""

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from greycircle.games.services import SeatSpec
from greycircle.moderation.flags import flag_raise
from greycircle.moderation.models import Flag, FlagKind
from tests.factories import game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]


@pytest.fixture
def games(alice, bob):
    return [
        game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
        for _ in range(2)
    ]


def raise_losses(alice, bob, game, games: int) -> Flag:
    return flag_raise(
        kind=FlagKind.QUICK_LOSSES,
        user_id=alice.pk,
        other_user_id=bob.pk,
        game=game,
        games=games,
        description=f"bob lost quickly to alice {games} times.",
    )


def test_a_pattern_raises_one_open_flag_and_keeps_it_up_to_date(alice, bob, games):
    first = raise_losses(alice, bob, games[0], 3)
    again = raise_losses(alice, bob, games[1], 4)

    assert again.pk == first.pk
    flag = Flag.objects.get()
    assert (flag.games, flag.game, flag.description) == (
        4,
        games[1],
        "bob lost quickly to alice 4 times.",
    )
    assert flag.updated >= flag.created
    # Another pattern of the same accounts is another flag.
    flag_raise(kind=FlagKind.QUICK_WINS, user_id=alice.pk, game=games[1], games=10, description="x")
    assert Flag.objects.count() == 2


def test_a_reviewed_flag_stays_as_it_was(alice, bob, games, staff):
    reviewed = raise_losses(alice, bob, games[0], 3)
    Flag.objects.filter(pk=reviewed.pk).update(reviewed_at=timezone.now(), reviewed_by=staff)

    fresh = raise_losses(alice, bob, games[1], 4)

    assert fresh.pk != reviewed.pk
    reviewed.refresh_from_db()
    assert reviewed.games == 3


def test_the_database_keeps_one_open_flag_per_pattern(alice, bob, games):
    flag = raise_losses(alice, bob, games[0], 3)

    with pytest.raises(IntegrityError), transaction.atomic():
        Flag.objects.create(
            kind=flag.kind, key=flag.key, description="again", games=1, updated=timezone.now()
        )
