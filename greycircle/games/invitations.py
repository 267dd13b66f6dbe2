"""Answers to invitations: accept, decline, withdraw, and expiry after `GAMES_INVITATION_DAYS`.

Seats are promised to invited users by `services.game_create`; each answer here locks the game
(as every service that changes a game does) and publishes after commit.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from greycircle.games import events
from greycircle.games.changes import (
    game_committed,
    game_lock,
    game_start_if_ready,
    game_withdraw,
)
from greycircle.games.errors import GameInvalid, GameNotFound, GamePermissionDenied
from greycircle.games.models import Game, Invitation, InvitationStatus, OnDecline

if TYPE_CHECKING:
    from accounts.models import User


def invitation_accept(*, invitation_id: int, user: User) -> Game:
    """The invitee takes their seat; the game starts if it was the last one it waited for."""
    with transaction.atomic():
        game, invitation = _invitation_lock(invitation_id, user=user, role="invitee")
        invitation.status = InvitationStatus.ACCEPTED
        invitation.answered_at = timezone.now()
        invitation.save(update_fields=["status", "answered_at"])
        seat = game.seats.all()[invitation.seat]
        seat.joined_at = invitation.answered_at
        seat.save(update_fields=["joined_at"])
        if not game_start_if_ready(game):  # starting counts as the change (version + 1)
            game.version += 1
        game.save()

        def committed() -> None:
            game_committed(game)
            events.invitation_answered(invitation=invitation, game=game)

        transaction.on_commit(committed)
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


def invitations_expire(*, now: datetime | None = None) -> list[int]:
    """Expire every pending invitation whose time is up; returns their ids.

    Each is closed in its own transaction with its game locked, as if declined. Run periodically
    by the task worker (greycircle.games.worker).
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
    `on_decline`, and publish after commit."""
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

    def committed() -> None:
        game_committed(game, cancelled=cancelled)
        events.invitation_answered(invitation=invitation, game=game)

    transaction.on_commit(committed)
