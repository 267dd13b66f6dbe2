from django.urls import path

from greycircle.notifications import views

urlpatterns = [
    path("notifications/", views.inbox, name="inbox"),
    path("notifications/read-all/", views.inbox_read_all, name="inbox-read-all"),
    path("notifications/<int:notification_id>/read/", views.inbox_read, name="inbox-read"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
