from django.urls import path

from accounts import views

urlpatterns = [
    path("settings/", views.user_settings, name="settings"),
    path("friends/", views.friends_page, name="friends"),
    path("friends/request/", views.friend_request_send, name="friend-request-send"),
    path(
        "friends/requests/<int:request_id>/<slug:answer>/",
        views.friend_request_answer,
        name="friend-request-answer",
    ),
    path("friends/<int:user_id>/remove/", views.friend_remove, name="friend-remove"),
    path("friends/block/", views.user_block, name="user-block"),
    path("friends/blocked/<int:user_id>/unblock/", views.user_unblock, name="user-unblock"),
    path("guest/", views.guest_play, name="guest-play"),
    path("account/upgrade/", views.guest_upgrade, name="guest-upgrade"),
    path("account/delete/", views.account_delete, name="account-delete"),
    path("account/data/", views.account_data, name="account-data"),
]
