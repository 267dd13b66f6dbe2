"""Deleting an account (the player's own wish, or an idle guest's removal).

The account is *anonymised*, not deleted: its row stays, so the seats of finished games still
point at somebody (a seat with no user would look open to join) and those games keep their
outcome, log and ratings. Everything personal goes: the username becomes "deleted-<id>" (shown
as "deleted player"), the e-mail addresses, password, settings, friends, requests, blocks,
notifications, messages (to friends and in games' chats) and ratings are removed (the reports
they filed stay, without their name), and the row can never log in again (`is_active` off, an
unusable password; its open sockets are closed with 4401). Games still going are settled first,
through the game services:

- a game in play is resigned (every other seat wins);
- a table the player set up and nobody has started yet is withdrawn (cancelled);
- an invitation waiting for the player's answer is declined (the seat opens, or the game is
  cancelled, as its creator chose); a seat they took at someone else's table is opened again.

All of it is one transaction; the live updates of the settled games go out after it commits.
"""

from __future__ import annotations

import secrets

from allauth.account.models import EmailAddress
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.errors import AccountInvalid
from accounts.models import Block, FriendRequest, Friendship, User, lookalike_exists
from accounts.usernames import DELETED_PREFIX
from greycircle.chat.services import game_chat_forget
from greycircle.conversations.models import ConversationRead, DirectMessage
from greycircle.games import changes, events, invitations, services
from greycircle.games.errors import GameError
from greycircle.games.models import Game, GameStatus, Invitation, InvitationStatus
from greycircle.notifications.models import MailSent, Notification
from greycircle.ratings.models import PlayerRating
from greycircle.reports.models import Report

# The settings a deleted account is left with: their defaults, so nothing of the player's
# choices stays behind.
_SETTINGS = (
    "show_helpers",
    "confirm_moves",
    "accept_invitations_from_anyone",
    *User.NOTIFICATION_PREFERENCES,
)


def account_delete(*, user: User, password: str = "", confirm: bool = False) -> None:
    """Delete `user`'s account at their request, once they have confirmed it.

    A player with a password confirms with it (`wrong_password` otherwise, and nothing changes);
    a guest, who has none, with `confirm` (`confirmation_required`). The caller logs the
    session out.
    """
    if user.has_usable_password():
        if not password or not user.check_password(password):
            raise AccountInvalid("wrong_password", "That is not your password.")
    elif not confirm:
        raise AccountInvalid(
            "confirmation_required", "Confirm that you want to delete your account."
        )
    account_anonymise(user=user)


def account_anonymise(*, user: User) -> User:
    """Settle `user`'s unfinished games and strip the account of everything personal (see the
    module docstring). No confirmation: callers check it. Returns the anonymised user."""
    with transaction.atomic():
        # Locked first, as the friends services lock users, so no request is made meanwhile.
        user = User.objects.select_for_update().get(pk=user.pk)
        # First of what runs after the commit, so its sockets hear nothing of the games settled.
        user_id = user.pk
        transaction.on_commit(
            lambda: events.user_sockets_close(user_id=user_id, code=events.ACCOUNT_DELETED)
        )
        _games_settle(user)
        Friendship.objects.filter(Q(user=user) | Q(friend=user)).delete()
        FriendRequest.objects.filter(Q(from_user=user) | Q(to_user=user)).delete()
        Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
        Notification.objects.filter(recipient=user).delete()
        MailSent.objects.filter(recipient=user).delete()
        # Their words go; their friends' stay, in conversations with "deleted player".
        DirectMessage.objects.filter(sender=user).delete()
        ConversationRead.objects.filter(user=user).delete()
        game_chat_forget(user=user)
        # The reports they filed stay for staff, no longer saying who filed them; reports about
        # them stay too (the row does).
        Report.objects.filter(reporter=user).update(reporter=None)
        PlayerRating.objects.filter(user=user).delete()
        EmailAddress.objects.filter(user=user).delete()
        user.groups.clear()
        user.user_permissions.clear()

        user.username = _placeholder_username(user)
        user.email = ""
        user.first_name = ""
        user.last_name = ""
        user.set_unusable_password()
        user.is_active = False
        user.is_staff = False
        user.is_superuser = False
        user.is_guest = False
        user.last_login = None
        user.deleted_at = timezone.now()
        for name in _SETTINGS:
            setattr(user, name, User._meta.get_field(name).get_default())
        user.save()
    return user


def _games_settle(user: User) -> None:
    """End or leave every game of `user` that is not over (the transaction is the caller's).

    Each step is a game service with its own savepoint: one that finds its game already moved on
    (finished meanwhile, say) is rolled back alone and the rest goes on.
    """
    games = (
        Game.objects.filter(seats__user=user, status__in=(GameStatus.OPEN, GameStatus.ACTIVE))
        .values_list("pk", "status", "created_by_id")
        .order_by("pk")
    )
    for game_id, status, creator_id in list(games):
        try:
            if status == GameStatus.ACTIVE:
                services.game_resign(game_id=game_id, user=user)
            elif creator_id == user.pk:
                services.game_cancel(game_id=game_id, user=user)
            else:
                _seat_give_up(game_id=game_id, user=user)
        except GameError:
            continue


def _seat_give_up(*, game_id: int, user: User) -> None:
    """Leave the seat `user` holds at somebody else's table that has not started: decline the
    invitation to it if one waits, or else open the seat to anyone again."""
    pending = Invitation.objects.filter(
        game_id=game_id,
        invitee=user,
        status=InvitationStatus.PENDING,
        expires_at__gt=timezone.now(),
    ).first()
    if pending is not None:
        invitations.invitation_decline(invitation_id=pending.pk, user=user)
        return
    with transaction.atomic():
        game = changes.game_lock(game_id)
        if game.status != GameStatus.OPEN:
            return
        seat = changes.seat_of(game, user)
        Invitation.objects.filter(game=game, invitee=user, status=InvitationStatus.PENDING).update(
            status=InvitationStatus.DECLINED, answered_at=timezone.now()
        )
        seat.user = None
        seat.joined_at = None
        seat.save(update_fields=["user", "joined_at"])
        game.version += 1
        game.save()
        changes.game_commit(game)


def _placeholder_username(user: User) -> str:
    """ "deleted-<id>": nobody can choose a name starting so (accounts.usernames), but an account
    older than that rule might hold it, so a random tail is added then."""
    username = f"{DELETED_PREFIX}{user.pk}"
    while lookalike_exists(username, exclude_pk=user.pk):
        username = f"{DELETED_PREFIX}{user.pk}-{secrets.token_hex(3)}"
    return username
