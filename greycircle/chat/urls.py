"""Game chat's API paths, under `/api/v1/` (included by greycircle.urls)."""

from django.urls import path

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from greycircle.chat.api import GameChatSwitchView, GameChatView

urlpatterns = [
    path("games/<id:game_id>/chat/", GameChatView.as_view(), name="game-chat"),
    path("games/<id:game_id>/chat/switch/", GameChatSwitchView.as_view(), name="game-chat-switch"),
]
