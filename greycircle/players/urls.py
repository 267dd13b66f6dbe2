from django.urls import path

from greycircle.players import views

urlpatterns = [
    path("friends/", views.friends_page, name="friends"),
    path("guest/", views.guest_play, name="guest-play"),
    path("account/delete/", views.account_delete, name="account-delete"),
    path("account/data/", views.account_data, name="account-data"),
]
