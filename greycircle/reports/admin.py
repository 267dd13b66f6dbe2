"""The moderation desk in the admin: the queue of open reports, grouped by the reported player
(the Reports entry of the admin's index leads to it), and each player's case page.

Reading goes through greycircle.reports.desk, acting through greycircle.reports.resolution; the
pages stay thin. Permissions: `reports.view_report` shows the desk, `reports.change_report` lets
staff act on it (the Moderators group holds both, greycircle.moderation's
MODERATOR_PERMISSIONS); a player never reaches the admin at all.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from greycircle.moderation import pages as moderation_pages
from greycircle.moderation import sanctions
from greycircle.moderation import selectors as moderation_selectors
from greycircle.moderation.errors import ModerationError
from greycircle.moderation.forms import ReasonForm
from greycircle.reports import desk, resolution
from greycircle.reports.desk_forms import ResolveForm
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
            path(
                "player/<int:user_id>/assign/",
                view(self.assign_view),
                name="reports_report_assign",
            ),
            path(
                "player/<int:user_id>/resolve/",
                view(self.resolve_view),
                name="reports_report_resolve",
            ),
            path(
                "player/<int:user_id>/sanctions/<int:sanction_id>/lift/",
                view(self.lift_view),
                name="reports_report_lift",
            ),
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

    def _player(self, request: HttpRequest, user_id: int, *, act: bool = False) -> Any:
        """The player whose case it is, if the staff member may see it (and act on it)."""
        if not self.has_view_permission(request) or (act and not self.has_act_permission(request)):
            raise PermissionDenied
        player = get_user_model().objects.filter(pk=user_id).first()
        if player is None:
            raise Http404
        return player

    def case_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """One player's case: their open reports with the evidence, and what came before."""
        return self._case_page(request, self._player(request, user_id))

    def _case_page(
        self, request: HttpRequest, player: Any, *, form: ResolveForm | None = None
    ) -> HttpResponse:
        reports = desk.case_open_reports(user_id=player.pk)
        history = desk.case_sanctions(user_id=player.pk)
        context = self._context(
            request,
            title=f"Reports about {player.username}",
            subtitle=None,
            player=player,
            reports=reports,
            form=form or ResolveForm(reports=reports),
            games=desk.case_games(reports=reports),
            earlier=desk.case_earlier_reports(user_id=player.pk),
            sanctions=history,
            log=moderation_pages.log_table(
                moderation_selectors.moderation_log(user_id=player.pk),
                more_url=moderation_pages.log_url(user__id__exact=player.pk),
            ),
            opponents=desk.player_opponents(user_id=player.pk),
            ratings=desk.rating_history(user_id=player.pk),
            quick_moves=desk.QUICK_LOSS_MOVES,
        )
        return TemplateResponse(request, "admin/reports/desk/case.html", context)

    def assign_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """POST: take the player's open reports (GET only shows the case)."""
        player = self._player(request, user_id, act=True)
        if request.method == "POST":
            count = resolution.reports_assign(actor=request.user, user_id=player.pk)
            self.message_user(
                request,
                f"{count} open report{'s' if count != 1 else ''} about {player.username} "
                "assigned to you.",
                messages.SUCCESS,
            )
        return HttpResponseRedirect(self.case_url(player.pk))

    def resolve_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """POST the case page's form: its confirmation page; POST that confirmed: resolve the
        reports and go back to the queue. A form with errors shows the case again."""
        player = self._player(request, user_id, act=True)
        if request.method != "POST":
            return HttpResponseRedirect(self.case_url(player.pk))
        reports = desk.case_open_reports(user_id=player.pk)
        form = ResolveForm(request.POST, reports=reports)
        if not form.is_valid():
            return self._case_page(request, player, form=form)
        data = form.cleaned_data
        if moderation_pages.CONFIRMED not in request.POST:
            chosen = [report for report in reports if report.pk in data["reports"]]
            context = self._context(
                request,
                title=f"{form.summary(name=player.username)}?",
                subtitle=None,
                player=player,
                form=form,
                chosen=chosen,
                summary=form.summary(name=player.username),
                confirmed=moderation_pages.CONFIRMED,
                cancel_url=self.case_url(player.pk),
            )
            return TemplateResponse(request, "admin/reports/desk/confirm_resolve.html", context)
        try:
            handled = resolution.reports_resolve(
                actor=request.user,
                report_ids=data["reports"],
                action=data["action"],
                reason=data["reason"],
                days=data["days"],
                username=data["username"],
                notice=data["notice"],
            )
        except ModerationError as error:
            form.add_error(None, error.detail)
            return self._case_page(request, player, form=form)
        thanked = ", the reporters thanked" if any(r.reporter_id for r in handled) else ""
        self.message_user(
            request,
            f"Done: {form.summary(name=player.username)}; {len(handled)} "
            f"report{'s' if len(handled) != 1 else ''} handled{thanked}.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse(f"{self.admin_site.name}:reports_report_changelist"))

    def lift_view(self, request: HttpRequest, user_id: int, sanction_id: int) -> HttpResponse:
        """GET: ask why; POST with a reason: lift the sanction (recorded, the player told)."""
        player = self._player(request, user_id, act=True)
        sanction = sanctions.sanctions_of(user_id=player.pk).filter(pk=sanction_id).first()
        if sanction is None:
            raise Http404
        form = ReasonForm(request.POST) if request.method == "POST" else ReasonForm()
        if request.method == "POST" and form.is_valid():
            try:
                sanctions.sanction_lift(
                    actor=request.user, sanction_id=sanction.pk, reason=form.cleaned_data["reason"]
                )
            except ModerationError as error:
                self.message_user(request, error.detail, messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"Lifted {player.username}'s sanction: {sanction.get_kind_display().lower()}.",
                    messages.SUCCESS,
                )
            return HttpResponseRedirect(self.case_url(player.pk) + "#sanctions")
        return moderation_pages.confirmation_page(
            self,
            request,
            form=form,
            title="Lift this sanction?",
            question=f"Lift this sanction of {player.username}? It is undone at once and the "
            "player is told.",
            objects=[
                f"{sanction.get_kind_display()}, {sanction.created:%Y-%m-%d}: {sanction.reason}"
            ],
            submit="Yes, lift it",
            cancel_url=self.case_url(player.pk),
        )
