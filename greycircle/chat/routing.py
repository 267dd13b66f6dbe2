"""`ws/games/{id}/` with chat: put before the games' own route (greycircle.asgi)."""

from django.urls import path

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from greycircle.chat.consumers import ChatGameConsumer

websocket_urlpatterns = [path("ws/games/<id:game_id>/", ChatGameConsumer.as_asgi())]
