from django.urls import path

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from greycircle.games.consumers import GameConsumer, MeConsumer

websocket_urlpatterns = [
    path("ws/games/<id:game_id>/", GameConsumer.as_asgi()),
    path("ws/me/", MeConsumer.as_asgi()),
]
