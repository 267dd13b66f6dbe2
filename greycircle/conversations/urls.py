from django.urls import path

from greycircle.conversations import views

urlpatterns = [
    path("messages/", views.conversations_page, name="messages"),
    path("messages/<str:username>/", views.thread_page, name="messages-thread"),
]
