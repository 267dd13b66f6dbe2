"""Answers to invitations: accept, decline, withdraw, and expiry after `GAMES_INVITATION_DAYS`.

Seats are promised to invited users by `services.game_create`; each answer here locks the game
(as every service that changes a game does), tells what happened in its transaction (the inbox
queues its notifications with it) and publishes the game's frames after commit.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from accounts.selectors import blocked_user_ids
from greycircle.games import events
from greycircle.games.changes import (
    game_commit,
    game_lock,
    game_start_if_ready,
    game_withdraw,
)
from greycircle.games.errors import GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import (
    Game,
    GameStatus,
    Invitation,
    InvitationStatus,
    OnDecline,
    Seat,
)
from greycircle.games.rated_bar import rated_bar_check

if TYPE_CHECKING:
    from accounts.models import User


def invitation_accept(*, invitation_id: int, user: User) -> Game:
    """The invitee takes their seat; the game starts if it was the last one it waited for.

    Not at a table where someone seated has a block with the invitee, either way round (a block
    made after the invitation closes it, `seats_part_across_block`; this holds the line in a
    race with it)."""
    with transaction.atomic():
        game, invitation = _invitation_lock(invitation_id, user=user, role="invitee")
        others = {seat.user_id for seat in game.seats.all() if seat.user_id not in (None, user.pk)}
        if others & blocked_user_ids(user=user):
            raise GameInvalid("seat_unavailable", "You cannot take this seat any more.")
        if game.rated:
            rated_bar_check(user=user)
        invitation.status = InvitationStatus.ACCEPTED
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
        seat = game.seats.all()[invitation.seat]
        seat.joined_at = invitation.answered_at
        seat.save(update_fields=["joined_at"])
        if not game_start_if_ready(game):  # starting counts as the change (version + 1)
            game.version += 1
        game.save()
        game_commit(game)
        events.invitation_answered(invitation=invitation, game=game)
    return game


def invitation_decline(*, invitation_id: int, user: User) -> Game:
    """The invitee says no: the seat opens to anyone, or the game is cancelled, as its creator
    chose."""
    return _invitation_close(
        invitation_id, user=user, role="invitee", status=InvitationStatus.DECLINED
    )


def invitation_cancel(*, invitation_id: int, user: User) -> Game:
    """The inviter withdraws an invitation: the seat opens to anyone, or the game is cancelled,
    as chosen when it was created."""
    return _invitation_close(
        invitation_id, user=user, role="inviter", status=InvitationStatus.CANCELLED
    )


def seats_part_across_block(*, blocker: User, blocked: User) -> list[int]:
    """Part two users who now have a block between them at every table that has not started
    where both hold a seat; returns the ids of those games.

    The one who did not set the table up leaves it (if neither did, the one whose seat is only
    promised, or else the later to sit down): a pending invitation is closed (declined if it was
    the blocker's, else withdrawn; the seat opens, or the game is cancelled, as its creator
    chose); a seat taken is opened again. Games in play
    go on (either may resign); no new one can bring the two together
    (`services.game_create`, `game_join`, `game_rematch`, `invitation_accept`). Runs inside the
    block's transaction (accounts.signals.user_blocked), both users' rows locked first.
    """
    pair = {blocker.pk, blocked.pk}
    shared = (
        Game.objects.filter(status=GameStatus.OPEN, seats__user=blocker)
        .filter(seats__user=blocked)
        .values_list("pk", flat=True)
        .order_by("pk")
    )
    parted = []
    for game_id in list(shared):
        game = game_lock(game_id)
        seats = [seat for seat in game.seats.all() if seat.user_id in pair]
        if game.status != GameStatus.OPEN or len(seats) != 2:
            continue
        leaving = _seat_to_leave(game, seats, blocked=blocked)
        pending = game.invitations.filter(
            invitee_id=leaving.user_id, status=InvitationStatus.PENDING
        ).first()
        if pending is not None:
            # The blocker declines their own invitation; one to the blocked user is withdrawn.
            declined = leaving.user_id == blocker.pk
            status = InvitationStatus.DECLINED if declined else InvitationStatus.CANCELLED
            _invitation_fail(game, pending, status=status)
        else:
            leaving.user = None
            leaving.joined_at = None
            leaving.save(update_fields=["user", "joined_at"])
            game.version += 1
            game.save()
            game_commit(game)
        parted.append(game_id)
    return parted


def _seat_to_leave(game: Game, seats: list[Seat], *, blocked: User) -> Seat:
    """Of the two seats of a pair parted by a block, the one that gives way (see above): not the
    creator's, a promised seat before a taken one, the later taken; else the blocked user's."""

    def keeps(seat: Seat) -> tuple[bool, bool, float, bool]:
        joined = seat.joined_at.timestamp() if seat.joined_at is not None else 0.0
        return (
            seat.user_id == game.created_by_id,
            seat.joined_at is not None,
            -joined,
            seat.user_id != blocked.pk,
        )

    return min(seats, key=keeps)


def invitations_expire(*, now: datetime | None = None) -> list[int]:
    """Expire every pending invitation whose time is up; returns their ids.

    Each is closed in its own transaction with its game locked, as if declined. Run periodically
    by the task worker (greycircle.games.sweeps).
    """
    now = now or timezone.now()
    due = list(
        Invitation.objects.filter(status=InvitationStatus.PENDING, expires_at__lte=now).values_list(
            "pk", flat=True
        )
    )
    expired = []
    for invitation_id in due:
        with transaction.atomic():
            invitation = Invitation.objects.filter(pk=invitation_id).first()
            if invitation is None:
                continue
            game = game_lock(invitation.game_id)
            invitation = Invitation.objects.get(pk=invitation_id)
            if invitation.status != InvitationStatus.PENDING or invitation.expires_at > now:
                continue
            _invitation_fail(game, invitation, status=InvitationStatus.EXPIRED)
            expired.append(invitation_id)
    return expired


def _invitation_lock(invitation_id: int, *, user: User, role: str) -> tuple[Game, Invitation]:
    """The invitation's game locked, and the invitation, pending, answerable by `user` as
    `role` ("invitee" or "inviter"), or a refusal."""
    found = Invitation.objects.filter(pk=invitation_id).values_list("game_id", flat=True).first()
    if found is None:
        raise GameNotFound("not_found", "No such invitation.")
    game = game_lock(found)
    invitation = Invitation.objects.select_related("invitee", "inviter").get(pk=invitation_id)
    if user.pk not in (invitation.invitee_id, invitation.inviter_id):
        raise GameNotFound("not_found", "No such invitation.")
    if role == "invitee" and user.pk != invitation.invitee_id:
        raise GamePermissionDenied(
            "not_invitee", "Only the invited player can answer this invitation."
        )
    if role == "inviter" and user.pk != invitation.inviter_id:
        raise GamePermissionDenied(
            "not_inviter", "Only the player who sent this invitation can withdraw it."
        )
    if invitation.status != InvitationStatus.PENDING:
        raise GameInvalid(
            "invitation_not_pending",
            "This invitation is no longer waiting for an answer "
            f"({invitation.get_status_display().lower()}).",
        )
    if invitation.expires_at <= timezone.now():
        raise GameInvalid("invitation_expired", "This invitation has expired.")
    return game, invitation


def _invitation_close(invitation_id: int, *, user: User, role: str, status: str) -> Game:
    with transaction.atomic():
        game, invitation = _invitation_lock(invitation_id, user=user, role=role)
        _invitation_fail(game, invitation, status=status)
    return game


def _invitation_fail(game: Game, invitation: Invitation, *, status: str) -> None:
    """Close `invitation` (declined, withdrawn or expired) on its locked game, apply its
    `on_decline`, and tell it (its frames are published after commit)."""
    invitation.status = status
    invitation.answered_at = timezone.now()
    invitation.save(update_fields=["status", "answered_at"])
    cancelled = invitation.on_decline == OnDecline.CANCEL
    if cancelled:
        game_withdraw(game)
    else:
        seat = game.seats.all()[invitation.seat]
        seat.user = None
        seat.joined_at = None
        seat.save(update_fields=["user", "joined_at"])
    game.version += 1
    game.save()
    game_commit(game, cancelled=cancelled)
    events.invitation_answered(invitation=invitation, game=game)
