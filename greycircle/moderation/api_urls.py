"""The moderation's API paths, included in `/api/v1/` (greycircle.urls)."""

from django.urls import path

from greycircle.moderation.api import SanctionAcknowledgeView

urlpatterns = [
    path(
        "me/sanctions/<id:sanction_id>/acknowledge/",
        SanctionAcknowledgeView.as_view(),
        name="sanction-acknowledge",
    ),
]
