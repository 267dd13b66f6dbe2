"""The moderation services: a reason and a staff actor for every action, one entry per user or
game acted on, written in the action's own transaction, never changed afterwards."""

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils import timezone

from accounts.models import User
from greycircle import moderation
from greycircle.games.errors import GameInvalid
from greycircle.games.models import Game, GameStatus
from greycircle.games.services import SeatSpec, game_resign
from greycircle.moderation import selectors, services
from greycircle.moderation.errors import ModerationInvalid, ModerationPermissionDenied
from greycircle.moderation.flags import flag_raise
from greycircle.moderation.models import Flag, FlagKind, ModerationAction, ModerationActionKind
from tests.factories import UserFactory, game_started

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tictactoe")]

REASON = "Reported for abuse three times."


@pytest.fixture
def staff():
    return UserFactory(username="mod", is_staff=True)


@pytest.fixture
def game(alice, bob):
    return game_started(creator=alice, kind="tictactoe", opponents=[SeatSpec(user=bob)])


def failing_record(monkeypatch):
    """Make recording fail, to show that the action is undone with it."""

    def fail(**kwargs):
        raise RuntimeError("the log is unavailable")

    monkeypatch.setattr(services, "moderation_record", fail)


# --- moderation_record ----------------------------------------------------------------------------


def test_record_keeps_who_what_when_and_why(staff, alice, game):
    before = timezone.now()

    entry = services.moderation_record(
        actor=staff,
        action=ModerationActionKind.USER_CHANGE,
        reason="  Offensive username.  ",
        user=alice,
        game=game,
        description="Changed alice: username.",
    )

    entry.refresh_from_db()
    assert (entry.actor, entry.action, entry.user, entry.game) == (
        staff,
        "user_change",
        alice,
        game,
    )
    assert entry.reason == "Offensive username."
    assert entry.description == "Changed alice: username."
    assert before <= entry.created <= timezone.now()


def test_record_describes_the_action_by_default(staff, alice):
    entry = services.moderation_record(
        actor=staff, action="user_deactivate", reason=REASON, user=alice
    )

    assert entry.description == "Deactivated an account — user alice"


@pytest.mark.parametrize("reason", ["", "   ", "\n\t", None])
def test_record_refuses_no_reason(staff, alice, reason):
    with pytest.raises(ModerationInvalid) as error:
        services.moderation_record(actor=staff, action="user_deactivate", reason=reason, user=alice)

    assert error.value.code == "reason_required"
    assert not ModerationAction.objects.exists()


def test_record_refuses_a_reason_too_long(staff, alice):
    with pytest.raises(ModerationInvalid) as error:
        services.moderation_record(
            actor=staff,
            action="user_deactivate",
            reason="x" * (services.REASON_MAX_LENGTH + 1),
            user=alice,
        )

    assert error.value.code == "reason_too_long"


def test_record_refuses_an_actor_who_is_not_staff(alice, bob):
    with pytest.raises(ModerationPermissionDenied):
        services.moderation_record(actor=alice, action="user_deactivate", reason=REASON, user=bob)

    assert not ModerationAction.objects.exists()


def test_record_refuses_an_unknown_action(staff, alice):
    with pytest.raises(ValueError, match="user_shame"):
        services.moderation_record(actor=staff, action="user_shame", reason=REASON, user=alice)


def test_the_database_refuses_an_entry_without_a_reason(staff, alice):
    with pytest.raises(IntegrityError), transaction.atomic():
        ModerationAction.objects.create(
            actor=staff, action="user_deactivate", description="x", reason="", user=alice
        )


def test_entries_are_never_changed(staff, alice):
    entry = services.moderation_record(
        actor=staff, action="user_deactivate", reason=REASON, user=alice
    )
    entry.reason = "Something nicer"

    with pytest.raises(ValueError, match="never changed"):
        entry.save()

    entry.refresh_from_db()
    assert entry.reason == REASON


def test_the_actor_is_kept_and_targets_outlive_their_rows(staff, alice, game):
    services.moderation_record(actor=staff, action="game_abort", reason=REASON, game=game)
    services.moderation_record(actor=staff, action="user_change", reason=REASON, user=alice)

    with pytest.raises(ProtectedError):
        staff.delete()
    Game.objects.filter(pk=game.pk).delete()

    assert set(ModerationAction.objects.values_list("game_id", flat=True)) == {None}
    assert ModerationAction.objects.count() == 2


# --- users ----------------------------------------------------------------------------------------


def test_deactivate_records_one_entry_per_user_changed(staff, alice, bob, carol):
    User.objects.filter(pk=carol.pk).update(is_active=False)

    changed = services.users_deactivate(
        actor=staff, user_ids=[alice.pk, bob.pk, carol.pk], reason=REASON
    )

    assert [user.username for user in changed] == ["alice", "bob"]
    assert not User.objects.filter(is_active=True).exclude(pk=staff.pk).exists()
    assert list(
        ModerationAction.objects.order_by("pk").values_list("user__username", "action")
    ) == [
        ("alice", "user_deactivate"),
        ("bob", "user_deactivate"),
    ]


@pytest.mark.parametrize("reason", ["", "  "])
def test_deactivate_without_a_reason_changes_nothing(staff, alice, reason):
    with pytest.raises(ModerationInvalid):
        services.users_deactivate(actor=staff, user_ids=[alice.pk], reason=reason)

    alice.refresh_from_db()
    assert alice.is_active
    assert not ModerationAction.objects.exists()


def test_deactivating_yourself_changes_nothing(staff, alice):
    with pytest.raises(ModerationInvalid) as error:
        services.users_deactivate(actor=staff, user_ids=[staff.pk, alice.pk], reason=REASON)

    assert error.value.code == "self"
    assert User.objects.filter(is_active=True).count() == 2
    assert not ModerationAction.objects.exists()


def test_deactivating_is_undone_when_it_cannot_be_recorded(staff, alice, monkeypatch):
    failing_record(monkeypatch)

    with pytest.raises(RuntimeError):
        services.users_deactivate(actor=staff, user_ids=[alice.pk], reason=REASON)

    alice.refresh_from_db()
    assert alice.is_active


def test_reactivate_records_it(staff, alice, bob):
    User.objects.filter(pk=alice.pk).update(is_active=False)

    changed = services.users_reactivate(actor=staff, user_ids=[alice.pk, bob.pk], reason=REASON)

    assert changed == [alice]
    [entry] = ModerationAction.objects.all()
    assert (entry.user, entry.action, entry.description) == (
        alice,
        "user_reactivate",
        "Reactivated alice.",
    )


def test_delete_records_then_deletes(staff, alice, bob):
    deleted = services.users_delete(actor=staff, user_ids=[alice.pk, bob.pk], reason=REASON)

    assert deleted == 2
    assert not User.objects.filter(username__in=["alice", "bob"]).exists()
    assert sorted(ModerationAction.objects.values_list("description", "user_id", "action")) == [
        (f"Deleted the account alice (#{alice.pk}).", None, "user_delete"),
        (f"Deleted the account bob (#{bob.pk}).", None, "user_delete"),
    ]


def test_delete_without_a_reason_or_of_yourself_changes_nothing(staff, alice):
    with pytest.raises(ModerationInvalid):
        services.users_delete(actor=staff, user_ids=[alice.pk], reason="")
    with pytest.raises(ModerationInvalid):
        services.users_delete(actor=staff, user_ids=[staff.pk], reason=REASON)

    assert User.objects.count() == 2
    assert not ModerationAction.objects.exists()


# --- games ----------------------------------------------------------------------------------------


def test_abort_records_it(staff, game):
    aborted = services.game_abort(actor=staff, game_id=game.pk, reason=REASON)

    assert aborted.status == GameStatus.ABORTED
    [entry] = ModerationAction.objects.all()
    assert (entry.actor, entry.action, entry.game_id, entry.user, entry.reason) == (
        staff,
        "game_abort",
        game.pk,
        None,
        REASON,
    )
    assert entry.description == f"Aborted tictactoe game #{game.pk} (alice, bob)."


def test_abort_without_a_reason_changes_nothing(staff, game):
    with pytest.raises(ModerationInvalid):
        services.game_abort(actor=staff, game_id=game.pk, reason=" ")

    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE
    assert not ModerationAction.objects.exists()


def test_abort_of_a_game_over_records_nothing(staff, game):
    game_resign(game_id=game.pk, user=game.seats.get(index=0).user)

    with pytest.raises(GameInvalid):
        services.game_abort(actor=staff, game_id=game.pk, reason=REASON)

    assert not ModerationAction.objects.exists()


def test_abort_is_undone_when_it_cannot_be_recorded(staff, game, monkeypatch):
    failing_record(monkeypatch)

    with pytest.raises(RuntimeError):
        services.game_abort(actor=staff, game_id=game.pk, reason=REASON)

    game.refresh_from_db()
    assert game.status == GameStatus.ACTIVE


# --- selectors ------------------------------------------------------------------------------------


def test_the_log_of_a_user_or_game_is_newest_first(staff, alice, bob, game):
    old = services.moderation_record(actor=staff, action="user_change", reason="old", user=alice)
    ModerationAction.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(days=1))
    new = services.moderation_record(actor=staff, action="user_change", reason="new", user=alice)
    services.moderation_record(actor=staff, action="user_change", reason="bob's", user=bob)
    about_game = services.moderation_record(
        actor=staff, action="game_abort", reason="game", game=game
    )

    assert list(selectors.moderation_log(user_id=alice.pk)) == [new, old]
    assert list(selectors.moderation_log(game_id=game.pk)) == [about_game]
    assert selectors.moderation_log().count() == 4


def test_the_log_of_a_user_costs_one_query(staff, alice, django_assert_num_queries):
    for _ in range(3):
        services.moderation_record(actor=staff, action="user_change", reason=REASON, user=alice)

    with django_assert_num_queries(1):
        assert {entry.actor.username for entry in selectors.moderation_log(user_id=alice.pk)} == {
            "mod"
        }


def test_the_moderation_app_imports_no_game():
    imported = set()
    for path in Path(moderation.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add((node.module or "").split(".")[0])
    assert not imported & {"circles", "kingscorner", "cirkis"}


# --- flags_review ---------------------------------------------------------------------------------


@pytest.fixture
def flags(alice, bob, game):
    return [
        flag_raise(
            kind=kind,
            user_id=alice.pk,
            other_user_id=bob.pk if kind == FlagKind.QUICK_LOSSES else None,
            game=game,
            games=games,
            description=description,
        )
        for kind, games, description in [
            (FlagKind.QUICK_LOSSES, 3, "bob lost quickly to alice 3 times."),
            (FlagKind.QUICK_WINS, 10, "alice won 10 quick games."),
        ]
    ]


def test_reviewing_flags_records_who_when_and_what_was_found(staff, alice, game, flags):
    reviewed = services.flags_review(
        actor=staff, flag_ids=[flag.pk for flag in flags], reason="Two spare accounts; deactivated."
    )

    assert len(reviewed) == 2
    for flag in Flag.objects.all():
        assert flag.reviewed_by == staff
        assert flag.reviewed_at is not None
    entries = ModerationAction.objects.order_by("pk")
    assert [(entry.action, entry.user, entry.game) for entry in entries] == [
        ("flag_review", alice, game),
        ("flag_review", alice, game),
    ]
    assert (
        entries[0].description
        == f"Reviewed flag #{flags[0].pk}: bob lost quickly to alice 3 times."
    )
    assert entries[0].reason == "Two spare accounts; deactivated."
    # Reviewing again changes and records nothing.
    assert services.flags_review(actor=staff, flag_ids=[flags[0].pk], reason=REASON) == []
    assert ModerationAction.objects.count() == 2


@pytest.mark.parametrize("reason", ["", "   "])
def test_reviewing_without_a_reason_changes_nothing(staff, flags, reason):
    with pytest.raises(ModerationInvalid) as error:
        services.flags_review(actor=staff, flag_ids=[flags[0].pk], reason=reason)

    assert error.value.code == "reason_required"
    assert not Flag.objects.filter(reviewed_at__isnull=False).exists()


def test_only_staff_review_flags(bob, flags):
    with pytest.raises(ModerationPermissionDenied):
        services.flags_review(actor=bob, flag_ids=[flags[0].pk], reason=REASON)

    assert not Flag.objects.filter(reviewed_at__isnull=False).exists()
    assert not ModerationAction.objects.exists()
