"""Game services: concurrency, durability of computer turns, replay, query counts."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Block, User
from greycircle.games import selectors, services, tasks
from greycircle.games.errors import GameConflict, GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus, Move
from greycircle.games.services import SeatSpec
from greycircle.players.deletion import account_anonymise
from tests.factories import UserFactory, game_started, let_anyone_invite
from tests.games.conftest import refusal

pytestmark = pytest.mark.usefixtures("tictactoe")


@pytest.fixture
def duel(alice, bob):
    return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_moves_apply_exactly_once(duel, alice):
    barrier = threading.Barrier(2)
    results: list[str] = []

    def submit(cell: int) -> None:
        barrier.wait()
        try:
            services.move_submit(
                game_id=duel.pk, user=alice, move={"cell": cell}, expected_version=duel.version
            )
            results.append("played")
        except GameConflict as error:
            results.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(cell,)) for cell in (0, 8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == ["played", "stale_version"]
    assert Move.objects.filter(game=duel).count() == 1
    assert Game.objects.get(pk=duel.pk).version == duel.version + 1


@pytest.mark.django_db(transaction=True)
def test_a_move_costs_the_same_queries_early_and_late(duel, alice, bob):
    counts = []
    players = [alice, bob]
    for number, cell in enumerate([0, 3, 1, 4]):
        game = Game.objects.get(pk=duel.pk)
        with CaptureQueriesContext(connection) as queries:
            services.move_submit(
                game_id=game.pk,
                user=players[number % 2],
                move={"cell": cell},
                expected_version=game.version,
            )
        counts.append(len(queries))
    assert len(set(counts)) == 1, counts
    # The move and its publication (begin, the game and its seats, update, the log entry,
    # commit), and one queued task for the players' notifications: the task worker keeps the
    # "your turn" in the inbox, not the move.
    assert counts[0] <= 7


@pytest.mark.django_db(transaction=True)
def test_a_computer_turn_lost_with_its_worker_is_queued_again(alice, run_tasks):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    game = services.move_submit(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
    )
    assert tasks.ai_turns_queued() == {(game.pk, game.version)}
    # The worker that took the job died: the job is gone and the game still waits for the computer.
    DBTaskResult.objects.filter(task_path=tasks.ai_turn_run.module_path).delete()
    assert tasks.ai_turns_queued() == set()
    assert tasks.ai_turns_recover(stalled_for=timedelta(seconds=30)) == []
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - timedelta(minutes=1))

    assert tasks.ai_turns_recover(stalled_for=timedelta(seconds=30)) == [game.pk]
    run_tasks()
    game.refresh_from_db()
    assert game.to_move == 0
    assert game.move_count == 2


@pytest.mark.django_db(transaction=True)
def test_a_computer_turn_runs_once_however_often_it_is_queued(alice, run_tasks):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")]
    )
    game = services.move_submit(
        game_id=game.pk, user=alice, move={"cell": 4}, expected_version=game.version
    )
    assert services.ai_take_turn(game_id=game.pk, expected_version=game.version) is True
    assert services.ai_take_turn(game_id=game.pk, expected_version=game.version) is False
    run_tasks()  # the queued job finds the turn already played
    assert Move.objects.filter(game=game).count() == 2


@pytest.mark.django_db(transaction=True)
def test_computers_play_each_other_to_the_end(alice, run_tasks):
    game = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="random")]
    )
    services.move_submit(game_id=game.pk, user=alice, move={"cell": 4}, expected_version=1)
    services.game_resign(game_id=game.pk, user=alice)
    rematch = services.game_rematch(game_id=game.pk, user=alice)
    assert rematch.seats.all()[0].ai_level == "random", "the computer starts the rematch"
    run_tasks()
    rematch.refresh_from_db()
    assert rematch.move_count == 1
    assert rematch.to_move == 1


@pytest.mark.django_db
def test_replay_from_seed_and_log_equals_the_stored_state(duel, alice, bob):
    game = duel
    for user, cell in [(alice, 4), (bob, 0), (alice, 2), (bob, 6)]:
        game = services.move_submit(
            game_id=game.pk, user=user, move={"cell": cell}, expected_version=game.version
        )
    stored = Game.objects.get(pk=game.pk)
    assert selectors.game_replay(game=stored) == stored.state


# --- withdrawing an open table (game_cancel) ---------------------------------------------------


@pytest.fixture
def table(alice):
    """A game of alice's waiting for a second player."""
    return services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])


@pytest.mark.django_db
def test_the_creator_withdraws_an_open_table_and_nobody_loses_it(table, alice):
    withdrawn = services.game_cancel(game_id=table.pk, user=alice)

    assert withdrawn.status == GameStatus.CANCELLED
    assert withdrawn.outcome is None
    assert withdrawn.to_move is None
    assert withdrawn.finished_at is not None
    assert withdrawn.version == table.version + 1
    with pytest.raises(GameInvalid) as refused:
        services.game_join(game_id=table.pk, user=UserFactory())
    assert refused.value.code == "not_open"
    with pytest.raises(GameInvalid) as again:
        services.game_cancel(game_id=table.pk, user=alice)
    assert again.value.code == "not_open"


@pytest.mark.django_db(transaction=True)
def test_players_seated_at_a_withdrawn_table_are_told(
    alice, bob, notifications, deliver_notifications
):
    table = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    deliver_notifications()  # those of the table's creation
    notifications.clear()
    # Tic-tac-toe has two seats, so a joined table has started; seat bob by hand to test a
    # bigger table whose other seats are still open.
    table.seats.filter(index=1).update(user=bob)

    services.game_cancel(game_id=table.pk, user=alice)
    deliver_notifications()

    sent = [(user_id, event) for user_id, event, _ in notifications]
    assert (bob.pk, "game_withdrawn") in sent
    assert (alice.pk, "game_withdrawn") not in sent
    assert not any(event == "game_over" for _, event in sent)


@pytest.mark.django_db
def test_only_the_creator_may_withdraw_a_table(table, bob):
    with pytest.raises(GamePermissionDenied) as refused:
        services.game_cancel(game_id=table.pk, user=bob)
    assert refused.value.code == "not_the_creator"
    assert Game.objects.get(pk=table.pk).status == GameStatus.OPEN


@pytest.mark.django_db
def test_a_started_game_cannot_be_withdrawn_even_by_its_creator(table, alice, bob):
    services.game_join(game_id=table.pk, user=bob)

    with pytest.raises(GameInvalid) as refused:
        services.game_cancel(game_id=table.pk, user=alice)
    assert refused.value.code == "not_open"
    with pytest.raises(GamePermissionDenied):
        services.game_cancel(game_id=table.pk, user=bob)
    assert Game.objects.get(pk=table.pk).status == GameStatus.ACTIVE


@pytest.mark.django_db
def test_a_withdrawn_table_has_no_rematch(table, alice):
    services.game_cancel(game_id=table.pk, user=alice)
    with pytest.raises(GameInvalid) as refused:
        services.game_rematch(game_id=table.pk, user=alice)
    assert refused.value.code == "game_not_over"


@pytest.mark.django_db
def test_an_unlisted_game_stays_unlisted_with_the_same_link_in_its_rematch(alice, bob):
    game = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], unlisted=True
    )
    services.game_resign(game_id=game.pk, user=alice)

    assert game.unlisted
    rematch = services.game_rematch(game_id=game.pk, user=bob)
    assert rematch.unlisted
    assert rematch.link_key == game.link_key  # whoever had the game's link follows its rematch


@pytest.mark.parametrize("blocker", ["alice", "bob"])
def test_nobody_is_seated_across_a_block_either_way(blocker, alice, bob, carol):
    users = {"alice": alice, "bob": bob}
    Block.objects.create(blocker=users[blocker], blocked=bob if blocker == "alice" else alice)

    with pytest.raises(GameInvalid) as refused:
        services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    assert (refused.value.code, refused.value.detail) == ("bad_seats", "bob cannot be invited.")
    assert not Game.objects.exists()
    # Others are not affected.
    game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=carol)])


def test_no_rematch_across_a_block_made_after_the_game(duel, alice, bob):
    services.game_resign(game_id=duel.pk, user=bob)
    Block.objects.create(blocker=bob, blocked=alice)

    with pytest.raises(GameInvalid) as refused:
        services.game_rematch(game_id=duel.pk, user=alice)
    assert refused.value.code == "bad_seats"
    assert not Game.objects.filter(rematch_of=duel).exists()


@pytest.mark.parametrize("blocker", ["the table's creator", "the one who joins"])
def test_nobody_joins_a_table_across_a_block_either_way(blocker, alice, bob):
    table = services.game_create(creator=alice, kind="tictactoe", opponents=[SeatSpec()])
    if blocker == "the table's creator":
        Block.objects.create(blocker=alice, blocked=bob)
    else:
        Block.objects.create(blocker=bob, blocked=alice)

    # As if there were no such table: a block does not tell who made it.
    assert refusal(GameNotFound, services.game_join, game_id=table.pk, user=bob) == (
        "not_found",
        "No such game.",
    )
    table.refresh_from_db()
    assert (table.status, table.version) == (GameStatus.OPEN, 0)


def test_nobody_joins_an_unlisted_table_without_its_key(alice, bob):
    table = services.game_create(
        creator=alice, kind="tictactoe", opponents=[SeatSpec()], unlisted=True
    )
    assert refusal(GameNotFound, services.game_join, game_id=table.pk, user=bob).code == (
        "not_found"
    )
    assert refusal(
        GameNotFound, services.game_join, game_id=table.pk, user=bob, key="0" * 22
    ).code == ("not_found")
    joined = services.game_join(game_id=table.pk, user=bob, key=table.link_key)
    assert joined.status == GameStatus.ACTIVE


def test_a_game_does_not_seat_two_players_with_a_block_between_them(alice, bob, carol):
    let_anyone_invite(bob, carol)
    Block.objects.create(blocker=bob, blocked=carol)

    assert refusal(
        GameInvalid,
        services.game_create,
        creator=alice,
        kind="kingscorner",
        opponents=[SeatSpec(user=bob), SeatSpec(user=carol)],
    ) == ("bad_seats", "These players cannot be seated together.")
    assert not Game.objects.exists()


def test_a_stranger_acting_on_an_unlisted_game_finds_no_such_game(alice, bob, carol):
    duel = game_started(
        creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)], unlisted=True
    )
    assert refusal(GameNotFound, services.game_resign, game_id=duel.pk, user=carol).code == (
        "not_found"
    )
    listed = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    assert refusal(GamePermissionDenied, services.game_resign, game_id=listed.pk, user=carol) == (
        "not_a_player",
        "You are not playing in this game.",
    )


# --- a rematch follows the rules of a new game's invitations -----------------------------------


def test_a_rematch_does_not_invite_a_guest(alice, bob):
    duel = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=duel.pk, user=bob)
    User.objects.filter(pk=bob.pk).update(is_guest=True)

    assert refusal(GameInvalid, services.game_rematch, game_id=duel.pk, user=alice) == (
        "bad_seats",
        "bob plays as a guest: not invitable.",
    )
    bob.refresh_from_db()
    assert refusal(GameInvalid, services.game_rematch, game_id=duel.pk, user=bob) == (
        "bad_seats",
        "Create an account to invite players.",
    )
    assert not Game.objects.filter(rematch_of=duel).exists()


def test_a_guest_may_have_a_rematch_against_the_computer(alice):
    User.objects.filter(pk=alice.pk).update(is_guest=True)
    alice.refresh_from_db()
    game = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(ai_level="first")])
    services.game_resign(game_id=game.pk, user=alice)

    assert services.game_rematch(game_id=game.pk, user=alice).status == GameStatus.ACTIVE


@pytest.mark.parametrize("closed", ["deleted", "deactivated"])
def test_a_rematch_does_not_invite_a_closed_account(closed, alice, bob):
    duel = game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])
    services.game_resign(game_id=duel.pk, user=bob)
    if closed == "deleted":
        account_anonymise(user=bob)
    else:
        User.objects.filter(pk=bob.pk).update(is_active=False)

    refused = refusal(GameInvalid, services.game_rematch, game_id=duel.pk, user=alice)
    assert refused.code == "bad_seats"
    assert refused.detail.endswith("cannot be invited.")
    assert not Game.objects.filter(rematch_of=duel).exists()
    assert not Invitation.objects.filter(invitee=bob, status=InvitationStatus.PENDING).exists()
