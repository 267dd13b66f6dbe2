"""The daily digest (greycircle.notifications.digest): one e-mail a day listing every game
waiting on the player, queued by the workers' sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import User
from greycircle.games import services
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec
from greycircle.notifications import digest, mail_tasks
from greycircle.notifications.models import DigestSent
from greycircle.runtime.sweeps import sweeps_registered
from tests.factories import game_started, let_anyone_invite
from tests.notifications.conftest import to_move, verify

pytestmark = pytest.mark.usefixtures("tictactoe")


@pytest.fixture
def waiting(alice, bob, carol, settings):
    """bob asked for the digest; two games wait on him (his move against alice, carol's
    invitation), two do not (alice's move, a finished game). The games, by name."""
    settings.SITE_URL = "https://games.example.com"
    verify(alice, bob)
    User.objects.filter(pk=bob.pk).update(email_digest=True)
    games = {}
    for name, creator, other in (("his move", bob, alice), ("her move", alice, bob)):
        game = game_started(creator=creator, kind="tictactoe", opponents=[SeatSpec(user=other)])
        assert to_move(game) == creator
        games[name] = game
    finished = game_started(creator=bob, kind="tictactoe", opponents=[SeatSpec(user=alice)])
    Game.objects.filter(pk=finished.pk).update(status=GameStatus.FINISHED, to_move=None)
    let_anyone_invite(bob)
    games["invitation"] = services.game_create(
        creator=carol, kind="tictactoe", opponents=[SeatSpec(user=bob)]
    )
    return games


def digest_round() -> int:
    """One round of the sweep, then its queued mail tasks run (their bodies, in process)."""
    queued = mail_tasks.digests_send()
    tasks = DBTaskResult.objects.filter(task_path=mail_tasks.digest_mail_send.module_path)
    for task in tasks:
        digest.digest_mail_deliver(user_id=task.args_kwargs["args"][0])
    tasks.delete()
    return queued


def test_the_sweep_is_registered_with_the_workers():
    assert "daily digests" in [sweep.name for sweep in sweeps_registered()]


def test_one_mail_lists_exactly_the_games_waiting_and_nothing_hidden(waiting, bob, mailoutbox):
    assert digest_round() == 1

    [message] = mailoutbox
    assert message.to == [bob.email]
    assert message.subject == "2 games are waiting on you"
    his_move, invitation = waiting["his move"], waiting["invitation"]
    site = "https://games.example.com"
    assert (
        "2 games are waiting on you:\n\n"
        "- Tic-tac-toe with carol: your answer to the invitation\n"
        f"  {site}/games/{invitation.pk}/\n\n"
        f"- Tic-tac-toe with alice: your move\n  {site}/games/{his_move.pk}/\n"
    ) in message.body
    html = message.alternatives[0][0]
    for game in waiting.values():
        seed = str(Game.objects.get(pk=game.pk).seed)
        assert seed not in message.body
        assert seed not in html
    assert f"/games/{waiting['her move'].pk}/" not in message.body
    assert "https://games.example.com/settings/" in message.body
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def test_at_most_one_a_day(waiting, mailoutbox, bob):
    assert digest_round() == 1
    assert digest_round() == 0

    DigestSent.objects.filter(recipient=bob).update(sent_at=timezone.now() - timedelta(hours=23))
    assert digest_round() == 0
    DigestSent.objects.filter(recipient=bob).update(sent_at=timezone.now() - timedelta(hours=25))
    assert digest_round() == 1
    assert len(mailoutbox) == 2


def test_none_when_off_when_nothing_waits_or_while_on_the_site(
    waiting, alice, bob, mailoutbox, online
):
    # alice has a game waiting on her but did not ask for the digest.
    online(bob)
    assert digest_round() == 0
    assert not DigestSent.objects.exists()  # tried again once bob has left the site

    Game.objects.filter(pk__in=[waiting["his move"].pk, waiting["invitation"].pk]).update(
        status=GameStatus.ABORTED
    )
    cache.clear()
    assert digest_round() == 0
    assert mailoutbox == []


def test_on_the_site_for_those_who_want_e_mail_then_too(waiting, bob, mailoutbox, online):
    User.objects.filter(pk=bob.pk).update(email_only_away=False)
    online(bob)
    assert digest_round() == 1
    assert len(mailoutbox) == 1


def test_its_link_turns_it_off(waiting, bob, mailoutbox):
    digest_round()
    [message] = mailoutbox
    path = (
        message.extra_headers["List-Unsubscribe"]
        .strip("<>")
        .removeprefix("https://games.example.com")
    )

    response = Client(enforce_csrf_checks=True).post(
        path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 200
    bob.refresh_from_db()
    assert bob.email_digest is False
    assert bob.email_your_turn is False  # the other e-mail left as it was
