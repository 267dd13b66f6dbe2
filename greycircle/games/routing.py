from django.urls import path

from greycircle.games.consumers import GameConsumer, MeConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/me/", MeConsumer.as_asgi()),
]
