from django.urls import path

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from accounts import views

urlpatterns = [
    path("settings/", views.user_settings, name="settings"),
    path("friends/request/", views.friend_request_send, name="friend-request-send"),
    path(
        "friends/requests/<id:request_id>/<slug:answer>/",
        views.friend_request_answer,
        name="friend-request-answer",
    ),
    path("friends/<id:user_id>/remove/", views.friend_remove, name="friend-remove"),
    path("friends/block/", views.user_block, name="user-block"),
    path("friends/blocked/<id:user_id>/unblock/", views.user_unblock, name="user-unblock"),
    path("account/upgrade/", views.guest_upgrade, name="guest-upgrade"),
]
