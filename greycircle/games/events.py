"""Live updates, sent only after the change they describe has been committed, and what happened,
told in the change's own transaction (`game_news`: the notifications it causes are queued with it).

Each game has one channel group per audience (each seat, and spectators); a view is computed once
per audience, so no group message ever carries what another audience may not see. Each user has a
personal group for notifications (`ws/me/`). A publish that fails loses nothing for good: the
groups it was for are told to resync once Redis answers this process again (`MissedGroups`).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

import orjson
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from rest_framework.utils.encoders import JSONEncoder

from greycircle.games import clocks, selectors, signals
from greycircle.games.models import Game, Invitation, InvitationStatus, Move, Seat
from greycircle.outages import REDIS_ERRORS, Outage

logger = logging.getLogger(__name__)


def game_group(game_id: int, seat: int | None) -> str:
    audience = "spectators" if seat is None else f"seat{seat}"
    return f"game.{game_id}.{audience}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"


def user_sockets_group(user_id: int) -> str:
    """Every socket of one user, of whatever kind (to close them all: `user_sockets_close`)."""
    return f"sockets.{user_id}"


# Close codes of `user_sockets_close` (greycircle.games.consumers says what each means).
ACCOUNT_DEACTIVATED = 4403
ACCOUNT_DELETED = 4401


def user_sockets_close(*, user_id: int, code: int) -> None:
    """Close every socket of `user_id` now, on every server: their account was deactivated
    (`ACCOUNT_DEACTIVATED`) or deleted (`ACCOUNT_DELETED`). Call it once the change is committed;
    a reconnect is refused, since the account can no longer sign in."""
    publish([(user_sockets_group(user_id), {"type": "user.closed", "code": code})])


# A frame is written as DRF's encoder writes a response (dates to the microsecond, UTC as "Z",
# decimals as numbers, dict keys as strings), by orjson: the stdlib's encoder with DRF's hook for
# dates was the largest part of building a move's three frames (bench/README.md, "Moves over the
# socket"). Text outside ASCII is written as UTF-8 rather than \u escapes: the same JSON.
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_UTC_Z
_drf_default = JSONEncoder().default


def json_bytes(payload: Any) -> bytes:
    """`payload` as the JSON text the REST API would write (UTF-8)."""
    try:
        return orjson.dumps(payload, default=_drf_default, option=_ORJSON_OPTIONS)
    except orjson.JSONEncodeError:
        # What orjson does not write (an integer past 64 bits, say): as DRF writes it.
        return json.dumps(payload, cls=JSONEncoder, separators=(",", ":")).encode()


def jsonable(payload: dict[str, Any]) -> dict[str, Any]:
    # Channel layers serialise with msgpack: send dates and decimals as the JSON strings the REST
    # API sends (DRF's encoder: full microseconds), so a frame and a response agree.
    return orjson.loads(json_bytes(payload))


# Publishing never holds up the request or task that made the change for longer than this.
PUBLISH_TIMEOUT = 2.0
publishing = Outage(
    "live updates (publishing)",
    consequence="changes are not sent to sockets until it is back, then the sockets that missed "
    "them are told to catch up",
)


async def _group_send_many(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    await asyncio.wait_for(layer.group_send_many(messages), timeout=PUBLISH_TIMEOUT)


def _send(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    send_sync = getattr(layer, "group_send_many_sync", None)
    if send_sync is not None:
        send_sync(messages)
    else:
        async_to_sync(_group_send_many)(layer, messages)


def publish(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send every `(group, message)` of one change in one call to the channel layer
    (greycircle.runtime.channels: one pipeline to Redis for all of them). Groups whose message
    could not be sent are told to catch up once Redis answers again (`missed`)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return
    groups = [group for group, _ in messages]
    if publishing.skip():
        # Redis failed a moment ago: don't make every change wait on it again.
        missed.remember(layer, groups)
        return
    try:
        _send(layer, messages)
    except REDIS_ERRORS as error:
        # The change is committed; the sockets that missed it, on whichever server, are told to
        # catch up as soon as Redis answers.
        missed.remember(layer, groups)
        publishing.failed(error)
    except Exception:
        logger.exception("could not publish to %s", ", ".join(groups))
    else:
        publishing.succeeded()
        missed.retry_now()


# Groups told to resync are sent this many at a time.
RESYNC_AT_ONCE = 500

resyncing = Outage(
    "live updates (resync)",
    retry_after=0.0,
    consequence="this process's sockets are closed with 4503, and the groups whose changes it "
    "could not publish are told to catch up once it is back",
)


class MissedGroups:
    """The groups whose messages this process could not publish, to be told to resync.

    A failed publish loses its messages for the sockets of those groups on every server process,
    not only this one's: a task worker's (computer moves, deadlines) or a server's whose own
    connection to Redis failed, while the other servers' reads of Redis were fine and nothing
    closed their sockets. Nothing else would tell those sockets until the next change. So the
    groups are remembered (at most `limit`: the oldest are forgotten first, and left to catch up
    at their next change or reconnect), and a thread of this process's sends each one
    `{"type": "live.resync", "group": ...}` as soon as Redis answers again: it tries every
    `retry_seconds`, and at once after any publish that got through. Each socket answers it with
    its own snapshot, read as on connect for its own audience (greycircle.games.consumers), so
    the message carries nothing that another audience may not see. It is stored after every
    message of the group that did get through, so it comes after them, and the snapshot it
    brings is read when it arrives: at least as new as any of them.

    A resync that cannot be sent either (`resyncing`) closes this process's own sockets with 4503
    (greycircle.games.consumers): Redis is still failing for it, a second after the publish."""

    def __init__(self, *, limit: int = 10_000, retry_seconds: float = 1.0) -> None:
        self.limit = limit
        self.retry_seconds = retry_seconds
        self._lock = threading.Lock()
        self._layer: Any = None
        # Each group with the number of the failure it was last remembered for: one sent is
        # forgotten only if it did not fail again meanwhile.
        self._groups: dict[str, int] = {}
        self._failures = 0
        self._retry_now = threading.Event()
        self._thread: threading.Thread | None = None

    def remember(self, layer: Any, groups: Sequence[str]) -> None:
        with self._lock:
            if layer is not self._layer:
                self._layer, self._groups = layer, {}
            self._failures += 1
            for group in groups:
                self._groups.pop(group, None)  # the newest last: the oldest are dropped first
                self._groups[group] = self._failures
            over = len(self._groups) - self.limit
            if over > 0:
                for group in list(itertools.islice(self._groups, over)):
                    del self._groups[group]
                logger.warning("%d groups that missed changes will not be told to resync", over)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="resync", daemon=True)
                self._thread.start()

    def retry_now(self) -> None:
        """Redis answered: send the resyncs now rather than at the next retry."""
        if self._groups:
            self._retry_now.set()

    def forget(self) -> None:
        """Forget every group (for tests)."""
        with self._lock:
            self._layer, self._groups = None, {}

    def _after_fork(self) -> None:
        # A forked server process starts with none of its parent's groups, nor its thread.
        self._lock = threading.Lock()
        self._layer, self._groups, self._thread = None, {}, None
        self._retry_now = threading.Event()

    def _run(self) -> None:
        while True:
            self._retry_now.wait(self.retry_seconds)
            self._retry_now.clear()
            with self._lock:
                layer, groups = self._layer, list(self._groups.items())
                if not groups or layer is not get_channel_layer():
                    # Nothing left to tell; or the process's layer was replaced (tests change
                    # the settings), and nobody listens on this one's groups any more.
                    self._layer, self._groups, self._thread = None, {}, None
                    return
            try:
                for start in range(0, len(groups), RESYNC_AT_ONCE):
                    told = groups[start : start + RESYNC_AT_ONCE]
                    _send(
                        layer,
                        [(group, {"type": "live.resync", "group": group}) for group, _ in told],
                    )
                    with self._lock:
                        for group, failure in told:
                            if self._groups.get(group) == failure:
                                del self._groups[group]
            except REDIS_ERRORS as error:
                if self._layer is layer:  # not forgotten meanwhile (tests)
                    resyncing.failed(error)
            except Exception:
                # Not Redis: trying again would fail alike, every second.
                logger.exception("could not tell %d groups to resync", len(groups))
                self.forget()
            else:
                resyncing.succeeded()
                publishing.succeeded()


missed = MissedGroups()
os.register_at_fork(after_in_child=missed._after_fork)


def game_news(
    *,
    game: Game,
    created: bool = False,
    joined: Seat | None = None,
    ended: bool = False,
    cancelled: bool = False,
) -> None:
    """Tell what happened to `game` (`signals.game_changed`: the inbox queues the notifications
    of the players whom the change concerns), in the change's transaction (changes.game_commit).
    """
    seats = list(game.seats.all())
    invitations = (
        [
            {
                "seat": invitation.seat,
                "invitation": invitation.pk,
                "expires_at": invitation.expires_at,
            }
            for invitation in game.invitations.filter(status=InvitationStatus.PENDING)
        ]
        if created
        else []
    )
    facts = {
        "game": game.pk,
        "kind": game.kind,
        "version": game.version,
        "status": game.status,
        "to_move": game.to_move,
        "outcome": game.outcome,
        "created_by": game.created_by_id,
        "live": game.clock_initial_ms is not None,
        "seats": [
            {
                "index": seat.index,
                "user_id": seat.user_id,
                "name": seat.name,
                "is_person": seat.is_person,
                "first_turn": clocks.is_first_turn(game, seat.index),
            }
            for seat in seats
        ],
    }
    signals.game_changed.send(
        sender=Game,
        game=jsonable(facts),
        created=created,
        invitations=jsonable({"invitations": invitations})["invitations"],
        joined=joined.index if joined is not None else None,
        ended=ended,
        cancelled=cancelled,
    )


def game_envelopes_send(*, game: Game, moves: Sequence[Move] = ()) -> None:
    """Send each audience of `game` its new envelope and its view of the log entries `moves`, all
    in one publish (and nobody a notification)."""
    messages = []
    for seat in selectors.game_audiences(game=game):
        frame = {
            "type": "game",
            "envelope": selectors.game_view_for_seat(game=game, seat=seat),
            # The log entries the change added, as this audience may see them: clients extend
            # their log without fetching it (`GET .../moves/?after=N` on a gap).
            "moves": [selectors.move_entry_for_seat(move=move, seat=seat) for move in moves],
        }
        messages.append(
            (game_group(game.pk, seat), {"type": "game.envelope", "frame": frame_text(frame)})
        )
    publish(messages)


def frame_text(frame: dict[str, Any]) -> str:
    """A socket frame as the JSON text sent (dates and decimals as the REST API writes them)."""
    return json_bytes(frame).decode()


def invitation_answered(*, invitation: Invitation, game: Game) -> None:
    """Tell that `invitation` was answered or withdrawn (`signals.invitation_changed`: the inbox
    queues the inviter's news of how, or the invitee's that it was withdrawn), in the answer's
    transaction."""
    signals.invitation_changed.send(
        sender=Invitation,
        invitation={
            "invitation": invitation.pk,
            "status": invitation.status,
            "game": game.pk,
            "kind": game.kind,
            "version": game.version,
            "inviter_id": invitation.inviter_id,
            "inviter": invitation.inviter.username if invitation.inviter_id else None,
            "invitee_id": invitation.invitee_id,
            "invitee": invitation.invitee.username,
        },
    )


def game_poked(*, game: Game, by: Any, target: Any) -> None:
    """Tell that `by` reminds `target` it is their turn in `game` (a `reminder` for them)."""
    notify(
        user_id=target.pk,
        event="reminder",
        game=game.pk,
        kind=game.kind,
        version=game.version,
        by=by.username,
    )


def notify(*, user_id: int, event: str, **data: Any) -> None:
    """Tell that user `user_id` is to hear of `event` about a game (`signals.game_news`: the inbox
    queues it, to be kept and sent to their personal stream, `ws/me/`), in the transaction of the
    change it tells of, if any: it commits or rolls back with it."""
    signals.game_news.send(sender=Game, user_id=user_id, event=event, data=jsonable(data))
