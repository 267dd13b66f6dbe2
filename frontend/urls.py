from django.urls import path

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from frontend import pwa_views, replay_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("play/", views.play, name="play"),
    path("games/", views.my_games, name="my-games"),
    path("watch/", views.watch, name="watch"),
    path("games/<id:game_id>/", views.game, name="game"),
    path("games/<id:game_id>/join/", views.join, name="game-join"),
    path("games/<id:game_id>/replay/", replay_views.replay, name="game-replay"),
    path("games/import/", replay_views.game_import, name="game-import"),
    path("rules/<slug:kind>/", views.rules, name="rules"),
    path("about/", views.about, name="about"),
    # The installable site (frontend.pwa_views): the worker at the root, so its scope is all of it.
    path("manifest.webmanifest", pwa_views.manifest, name="manifest"),
    path("sw.js", pwa_views.service_worker, name="service-worker"),
    path("offline/", pwa_views.offline, name="offline"),
]
