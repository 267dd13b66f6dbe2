"""Download my data: everything the site keeps about a player, as they may see it.

The games carry their move logs as the player may see them (their own seat's private detail,
never another seat's: `games.selectors.move_entry_for_seat`, as `moves_for` shows the log), so
the export never tells more than the game page would.
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from django.db.models import Prefetch
from django.utils import timezone

from accounts import selectors
from accounts.models import User
from accounts.services import SETTINGS_FIELDS
from greycircle.chat.selectors import game_messages_data_of
from greycircle.conversations.selectors import messages_sent_by
from greycircle.games.models import Game, Move
from greycircle.games.selectors import move_entry_for_seat, seat_index_for, seats_json
from greycircle.lobby.models import Seek
from greycircle.lobby.selectors import seek_json
from greycircle.notifications.models import Notification
from greycircle.push.selectors import push_registrations_of
from greycircle.ratings.models import PlayerRating
from greycircle.reports.selectors import reports_data_of


def account_data_export(*, user: User) -> dict[str, Any]:
    """`user`'s profile, settings, games, seeks, friends, requests, blocks, ratings,
    notifications, the messages they sent friends and wrote in games' chats, the reports they
    filed and push registrations (the shape of
    `greycircle.players.serializers.AccountDataSerializer`)."""
    return {
        "exported_at": timezone.now(),
        "profile": {
            "id": user.pk,
            "username": user.username,
            "email": user.email,
            "email_addresses": [
                {"email": address.email, "primary": address.primary, "verified": address.verified}
                for address in EmailAddress.objects.filter(user=user).order_by("-primary", "email")
            ],
            "is_guest": user.is_guest,
            "date_joined": user.date_joined,
            "last_login": user.last_login,
        },
        "settings": {name: getattr(user, name) for name in SETTINGS_FIELDS},
        "games": _games(user),
        "seeks": _seeks(user),
        "friends": [
            {"username": friendship.friend.username, "since": friendship.created_at}
            for friendship in selectors.friends_of(user=user)
        ],
        "friend_requests": [
            {
                "from_user": request.from_user.username,
                "to_user": request.to_user.username,
                "created_at": request.created_at,
            }
            for request in selectors.friend_requests_of(user=user)
        ],
        "blocks": [
            {"username": block.blocked.username, "since": block.created_at}
            for block in selectors.blocked_by(user=user)
        ],
        "ratings": [
            {
                "kind": rating.kind,
                "speed": rating.speed,
                "rating": rating.rating,
                "deviation": rating.deviation,
                "games": rating.games,
            }
            for rating in PlayerRating.objects.filter(user=user).order_by("kind", "speed")
        ],
        "notifications": [
            {
                "kind": notification.kind,
                "text": notification.text,
                "link": notification.link,
                "read": notification.read,
                "created": notification.created,
            }
            for notification in Notification.objects.filter(recipient=user).order_by("created")
        ],
        "messages": [
            {"to_user": to_user, "body": message.body, "created": message.created}
            for message, to_user in messages_sent_by(user=user)
        ],
        "reports": reports_data_of(user=user),
        "game_messages": game_messages_data_of(user=user),
        **push_registrations_of(user=user),
    }


def _games(user: User) -> list[dict[str, Any]]:
    """Every game `user` has a seat in, oldest first, with its log as they may see it."""
    games = (
        Game.objects.filter(seats__user=user)
        .with_seats()
        .prefetch_related(Prefetch("moves", queryset=Move.objects.order_by("number")))
        .order_by("created_at", "pk")
    )
    exported = []
    for game in games:
        seat = seat_index_for(game=game, viewer=user)
        exported.append(
            {
                "id": game.pk,
                "kind": game.kind,
                "status": game.status,
                "your_seat": seat,
                "seats": seats_json(game=game),
                "outcome": game.outcome,
                "created_at": game.created_at,
                "finished_at": game.finished_at,
                "moves": [move_entry_for_seat(move=move, seat=seat) for move in game.moves.all()],
            }
        )
    return exported


# Of a seek as the lobby shows it, what my data keeps (not its id, my name, or "mine").
SEEK_FIELDS = (
    "kind",
    "pool",
    "seats",
    "time_control",
    "days_per_move",
    "rated",
    "rating",
    "rating_range",
    "status",
    "created_at",
    "game",
)


def _seeks(user: User) -> list[dict[str, Any]]:
    """`user`'s seeks in the lobby, oldest first: waiting ones, and ended ones until the lobby's
    sweep deletes them (a day after they end); as the lobby shows them (`seek_json`), with when
    each ended."""
    exported = []
    for seek in Seek.objects.filter(user=user).select_related("user").order_by("created_at", "pk"):
        shown = seek_json(seek=seek, viewer=user)
        exported.append(
            {
                **{name: shown[name] for name in SEEK_FIELDS},
                "ended_at": seek.ended_at,
            }
        )
    return exported
