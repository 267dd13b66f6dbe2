from django.urls import path

from greycircle.moderation import views

urlpatterns = [
    path(
        "notices/<id:sanction_id>/acknowledge/",
        views.notice_acknowledge,
        name="moderation-notice-acknowledge",
    ),
]
