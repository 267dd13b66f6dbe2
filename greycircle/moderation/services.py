"""Moderation actions: each one changes a user or a game and records who did it, what, when and
why (`ModerationAction`) in one transaction, so there is never an action without its entry nor an
entry for an action that did not happen.

Callers (the admin) check the staff member's admin permissions; these services insist on a
reason and on a staff actor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from greycircle.games import events
from greycircle.games import services as game_services
from greycircle.games.models import Game
from greycircle.moderation.errors import ModerationInvalid, ModerationPermissionDenied
from greycircle.moderation.models import Flag, ModerationAction, ModerationActionKind

if TYPE_CHECKING:
    from accounts.models import User

REASON_MAX_LENGTH = 1000
REASON_REQUIRED = "Say why: a reason is required, and it is kept in the moderation log."


def reason_clean(reason: str | None) -> str:
    """`reason` stripped; `reason_required` when there is none, `reason_too_long` past the limit."""
    reason = (reason or "").strip()
    if not reason:
        raise ModerationInvalid("reason_required", REASON_REQUIRED)
    if len(reason) > REASON_MAX_LENGTH:
        raise ModerationInvalid(
            "reason_too_long", f"A reason has at most {REASON_MAX_LENGTH} characters."
        )
    return reason


def moderation_record(
    *,
    actor: User,
    action: ModerationActionKind | str,
    reason: str,
    user: User | None = None,
    game: Game | None = None,
    description: str = "",
) -> ModerationAction:
    """Record that `actor` did `action` to `user` and/or `game`, because `reason`.

    Call it inside the transaction of the action itself. `description` says what was done in
    words (by default the action's label and the target). A user deactivated (by whichever
    path: the admin's form or its action) has every open socket closed once it commits.
    """
    reason = reason_clean(reason)
    if not (actor.is_staff and actor.is_active):
        raise ModerationPermissionDenied("not_staff", "Only staff take moderation actions.")
    action = ModerationActionKind(action)
    if action == ModerationActionKind.USER_DEACTIVATE and user is not None:
        user_id = user.pk
        transaction.on_commit(
            lambda: events.user_sockets_close(user_id=user_id, code=events.ACCOUNT_DEACTIVATED)
        )
    if not description:
        targets = [f"user {user.username}" if user else "", f"game #{game.pk}" if game else ""]
        description = " — ".join(filter(None, [action.label, *targets]))
    return ModerationAction.objects.create(
        actor=actor,
        action=action,
        description=description[:300],
        reason=reason,
        user=user,
        game=game,
    )


def users_deactivate(*, actor: User, user_ids: Iterable[int], reason: str) -> list[User]:
    """Deactivate the users (they can no longer sign in; their sessions and tokens stop
    working). Users already inactive are left alone. Returns the users deactivated.

    Refuses (`self`, nothing changed) when the actor is among them."""
    ids = set(user_ids)
    if actor.pk in ids:
        raise ModerationInvalid(
            "self", "You cannot deactivate your own account. Nothing was changed."
        )
    return _users_set_active(actor=actor, user_ids=ids, active=False, reason=reason)


def users_reactivate(*, actor: User, user_ids: Iterable[int], reason: str) -> list[User]:
    """Reactivate the users; those already active are left alone. Returns the users changed."""
    return _users_set_active(actor=actor, user_ids=set(user_ids), active=True, reason=reason)


def users_delete(*, actor: User, user_ids: Iterable[int], reason: str) -> int:
    """Delete the users (their own rows go with them: friendships, notifications, ...), each
    recorded first; the entries keep the username in their description. Returns how many."""
    reason = reason_clean(reason)
    ids = set(user_ids)
    if actor.pk in ids:
        raise ModerationInvalid("self", "You cannot delete your own account. Nothing was changed.")
    with transaction.atomic():
        users = list(get_user_model().objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        for user in users:
            moderation_record(
                actor=actor,
                action=ModerationActionKind.USER_DELETE,
                reason=reason,
                user=user,
                description=f"Deleted the account {user.username} (#{user.pk}).",
            )
        get_user_model().objects.filter(pk__in=[user.pk for user in users]).delete()
    return len(users)


def game_abort(*, actor: User, game_id: int, reason: str) -> Game:
    """Abort the game through the game service (nobody wins), recorded. Raises what
    `game_abort` raises (`game_over` when it is already over) and then records nothing."""
    reason = reason_clean(reason)
    with transaction.atomic():
        game = game_services.game_abort(game_id=game_id)
        players = ", ".join(seat.name for seat in game.seats.select_related("user"))
        moderation_record(
            actor=actor,
            action=ModerationActionKind.GAME_ABORT,
            reason=reason,
            game=game,
            description=f"Aborted {game.kind} game #{game.pk}"
            + (f" ({players})." if players else "."),
        )
    return game


def flags_review(*, actor: User, flag_ids: Iterable[int], reason: str) -> list[Flag]:
    """Mark the open flags reviewed by `actor`, each recorded with `reason` (what was found, what
    was done). Flags already reviewed are left alone. Returns the flags reviewed."""
    reason = reason_clean(reason)
    with transaction.atomic():
        flags = list(
            Flag.objects.select_for_update(of=("self",))
            .filter(pk__in=set(flag_ids), reviewed_at__isnull=True)
            .select_related("user", "game")
            .defer("game__state")
            .order_by("pk")
        )
        now = timezone.now()
        for flag in flags:
            moderation_record(
                actor=actor,
                action=ModerationActionKind.FLAG_REVIEW,
                reason=reason,
                user=flag.user,
                game=flag.game,
                description=f"Reviewed flag #{flag.pk}: {flag.description}",
            )
            flag.reviewed_at, flag.reviewed_by = now, actor
        Flag.objects.bulk_update(flags, ["reviewed_at", "reviewed_by"])
    return flags


def _users_set_active(*, actor: User, user_ids: set[int], active: bool, reason: str) -> list[User]:
    reason = reason_clean(reason)
    model = get_user_model()
    with transaction.atomic():
        changing = list(
            model.objects.select_for_update()
            .filter(pk__in=user_ids, is_active=not active)
            .order_by("pk")
        )
        model.objects.filter(pk__in=[user.pk for user in changing]).update(is_active=active)
        for user in changing:
            user.is_active = active
            moderation_record(
                actor=actor,
                action=(
                    ModerationActionKind.USER_REACTIVATE
                    if active
                    else ModerationActionKind.USER_DEACTIVATE
                ),
                reason=reason,
                user=user,
                description=f"{'Reactivated' if active else 'Deactivated'} {user.username}.",
            )
    return changing
