from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.play, name="play"),
    path("games/", views.my_games, name="my-games"),
    path("watch/", views.watch, name="watch"),
    path("games/<int:game_id>/", views.game, name="game"),
    path("games/<int:game_id>/join/", views.join, name="game-join"),
]
