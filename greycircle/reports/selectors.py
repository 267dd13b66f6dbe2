"""Reads of reports shaped for their reporter."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import User
from greycircle.reports.models import Report


def reports_filed_by(*, user: User) -> QuerySet[Report]:
    """The reports `user` filed, newest first."""
    return Report.objects.filter(reporter=user).order_by("-created", "-pk")


def report_json(*, report: Report) -> dict[str, Any]:
    """A report as its reporter sees it: what they reported and whether it was handled, never
    the outcome nor what was done about the player."""
    return {
        "id": report.pk,
        "reason": report.reason,
        "created": report.created,
        "status": report.status,
    }


def reports_data_of(*, user: User) -> list[dict[str, Any]]:
    """The reports `user` filed, oldest first, for their data download: what they reported and
    whether it was handled (never the outcome; never the reports about them)."""
    return [
        {
            "reason": report.reason,
            "comment": report.comment,
            "about": report.user.username,
            "created": report.created,
            "status": report.status,
        }
        for report in Report.objects.filter(reporter=user).select_related("user").order_by("pk")
    ]
