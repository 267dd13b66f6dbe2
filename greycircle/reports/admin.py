"""The moderation desk in the admin: the queue of open reports, grouped by the reported player
(the Reports entry of the admin's index leads to it), and each player's case page.

Reading goes through greycircle.reports.desk, acting through greycircle.reports.resolution; the
pages stay thin. Permissions: `reports.view_report` shows the desk, `reports.change_report` lets
staff act on it (the Moderators group holds both, greycircle.moderation's
MODERATOR_PERMISSIONS); a player never reaches the admin at all.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from greycircle.moderation import pages as moderation_pages
from greycircle.moderation import selectors as moderation_selectors
from greycircle.reports import desk
from greycircle.reports.models import Report, ReportReason, ReportSource


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """No list, add, edit or delete pages of its own: the desk's pages instead."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_act_permission(self, request: HttpRequest) -> bool:
        """Assigning and resolving reports (and lifting sanctions from a case)."""
        return request.user.has_perm("reports.change_report")

    def _context(self, request: HttpRequest, **extra: Any) -> dict[str, Any]:
        request.current_app = self.admin_site.name
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "app_label": self.opts.app_label,
            "may_act": self.has_act_permission(request),
            **extra,
        }

    def get_urls(self) -> list[Any]:
        def view(function: Any) -> Any:
            return self.admin_site.admin_view(function)

        return [
            path("player/<int:user_id>/", view(self.case_view), name="reports_report_case"),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """A report is seen on its player's case page, with the rest of the evidence."""
        report = self.get_object(request, object_id)
        if report is None or not self.has_view_permission(request, report):
            raise Http404
        return HttpResponseRedirect(self.case_url(report.user_id) + f"#report-{report.pk}")

    def case_url(self, user_id: int) -> str:
        return reverse(f"{self.admin_site.name}:reports_report_case", args=[user_id])

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """The queue: open reports by player, the longest waiting first, filtered by the GET
        parameters `assigned` (unassigned, mine), `reason` and `source`."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        chosen = {name: request.GET.get(name, "") for name in ("assigned", "reason", "source")}
        entries = desk.report_queue(viewer=request.user, **chosen)
        filters = [
            ("assigned", "Assigned to", "Anyone", list(desk.ASSIGNED_FILTERS.items())),
            ("reason", "Reason", "Any reason", ReportReason.choices),
            ("source", "Source", "Any source", ReportSource.choices),
        ]
        context = self._context(
            request,
            title="Moderation desk: open reports",
            subtitle=None,
            entries=entries,
            shown=desk.QUEUE_SHOWN,
            filters=[
                {
                    "name": name,
                    "label": label,
                    "any": anyone,
                    "choices": choices,
                    "value": chosen[name],
                }
                for name, label, anyone, choices in filters
            ],
            filtered=any(chosen.values()),
        )
        return TemplateResponse(request, "admin/reports/desk/queue.html", context)

    def case_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """One player's case: their open reports with the evidence, and what came before."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        player = get_user_model().objects.filter(pk=user_id).first()
        if player is None:
            raise Http404
        reports = desk.case_open_reports(user_id=player.pk)
        context = self._context(
            request,
            title=f"Reports about {player.username}",
            subtitle=None,
            player=player,
            reports=reports,
            games=desk.case_games(reports=reports),
            earlier=desk.case_earlier_reports(user_id=player.pk),
            log=moderation_pages.log_table(
                moderation_selectors.moderation_log(user_id=player.pk),
                more_url=moderation_pages.log_url(user__id__exact=player.pk),
            ),
            opponents=desk.player_opponents(user_id=player.pk),
            ratings=desk.rating_history(user_id=player.pk),
            quick_moves=desk.QUICK_LOSS_MOVES,
        )
        return TemplateResponse(request, "admin/reports/desk/case.html", context)
