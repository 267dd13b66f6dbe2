"""Game chat: each game's two rooms (its players', and its spectators') and who turned it off.

A message the screening flagged (greycircle.chat.screening) is `hidden`: its author still sees
it, nobody else does but staff until staff review it (the admin), as lichess's shadow mode keeps
a flagged message from those it was meant for. Messages stay with the game: its replay shows them
to those who could read them while it ran (greycircle.chat.selectors).

A message's `client_id` is its author's own name for it, its idempotency key: a client that got
no answer in time on the game's socket posts it again over HTTP with the same id, and the
message already posted is the answer, not a second one (greycircle.chat.services).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

# A client's id for a message: what a random hex or base64url id, a UUID or "chat-<time>-<n>" are
# made of, and short (it is kept in an index with the author).
CLIENT_ID_MAX = 64
CLIENT_ID_PATTERN = rf"^[A-Za-z0-9_.:-]{{1,{CLIENT_ID_MAX}}}$"
CLIENT_ID = re.compile(CLIENT_ID_PATTERN)


class ChatRoom(models.TextChoices):
    PLAYERS = "players", "Players"
    SPECTATORS = "spectators", "Spectators"


class GameMessage(models.Model):
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="chat_messages")
    room = models.CharField(max_length=16, choices=ChatRoom.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="game_messages"
    )
    body = models.TextField(help_text="Plain text as screened: shown escaped, never as markup.")
    created = models.DateTimeField(default=timezone.now)
    has_links = models.BooleanField(default=False)
    hidden = models.BooleanField(
        default=False,
        help_text="Flagged by the screening: its author sees it, nobody else but staff until "
        "staff review it.",
    )
    flag_reason = models.CharField(max_length=100, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # Null, not "", for no id: the unique constraint below never matches nulls (DJ001 wants "").
    client_id = models.CharField(  # noqa: DJ001
        max_length=CLIENT_ID_MAX,
        null=True,
        blank=True,
        validators=[RegexValidator(CLIENT_ID_PATTERN)],
        help_text="Its author's id for it (their idempotency key): posted again with it, the "
        "message is not posted twice.",
    )

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["game", "room", "id"], name="game_messages")]
        constraints = [
            models.UniqueConstraint(fields=["author", "client_id"], name="game_message_client_id")
        ]

    def __str__(self) -> str:
        return f"message {self.pk} from {self.author_id} in game {self.game_id} ({self.room})"


class GameChatOff(models.Model):
    """`user` turned chat off in `game`: they see none of its messages and post none."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="game_chat_off_once")]

    def __str__(self) -> str:
        return f"chat off for {self.user_id} in game {self.game_id}"
