"""Game chat: each game's two rooms (its players', and its spectators') and who turned it off.

A message the screening flagged (greycircle.chat.screening) is `hidden`: its author still sees
it, nobody else does but staff until staff review it (the admin), as lichess's shadow mode keeps
a flagged message from those it was meant for. Messages stay with the game: its replay shows them
to those who could read them while it ran (greycircle.chat.selectors).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


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

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["game", "room", "id"], name="game_messages")]

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
