"""`ws/me/` with the messages between friends: put before the games' own route (greycircle.asgi)."""

from django.urls import path

from greycircle.conversations.consumers import MessagesMeConsumer

websocket_urlpatterns = [path("ws/me/", MessagesMeConsumer.as_asgi())]
