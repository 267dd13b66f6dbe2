from django.urls import path

import greycircle.converters  # noqa: F401 (registers the <id:...> path converter)
from greycircle.notifications import views

urlpatterns = [
    path("notifications/", views.inbox, name="inbox"),
    path("notifications/read-all/", views.inbox_read_all, name="inbox-read-all"),
    path("notifications/<id:notification_id>/read/", views.inbox_read, name="inbox-read"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
