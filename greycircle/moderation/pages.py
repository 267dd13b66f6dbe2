"""Admin pieces for moderation actions: the confirmation page that asks why, and the log table
shown on a user's and a game's admin page."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import display_for_value
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from greycircle.moderation.forms import ReasonForm
from greycircle.moderation.models import ModerationAction

CONFIRMED = "confirm_moderation"  # the confirmation page's submit button
LOG_SHOWN = 25


def reason_form(request: HttpRequest) -> ReasonForm:
    """Bound to the posted confirmation page, or blank when the page is first asked for."""
    return ReasonForm(request.POST) if CONFIRMED in request.POST else ReasonForm()


def confirmation_page(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    *,
    form: ReasonForm,
    title: str,
    question: str,
    objects: Sequence[str],
    submit: str,
    cancel_url: str,
    action: str | None = None,
    selected: Iterable[Any] = (),
) -> TemplateResponse:
    """The page that asks staff to confirm a moderation action and say why.

    With `action` it posts back to the change list as that admin action on `selected` (the
    primary keys); without, to the page's own URL.
    """
    opts = model_admin.opts
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "question": question,
        "objects": objects,
        "form": form,
        "submit": submit,
        "confirmed": CONFIRMED,
        "cancel_url": cancel_url,
        "action": action,
        "selected": [str(pk) for pk in selected],
        "action_checkbox_name": ACTION_CHECKBOX_NAME,
        "opts": opts,
        "app_label": opts.app_label,
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, "admin/moderation/confirm.html", context)


def log_table(entries: Sequence[ModerationAction], *, more_url: str | None = None) -> str:
    """The entries as a table (when, who, what, why), newest first as given; `more_url` links
    to the whole log when there are more than LOG_SHOWN entries."""
    entries = list(entries[: LOG_SHOWN + 1])
    if not entries:
        return "No moderation actions."
    rows = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (
                display_for_value(entry.created, "—"),
                entry.actor.username,
                entry.description,
                entry.reason,
            )
            for entry in entries[:LOG_SHOWN]
        ),
    )
    more = ""
    if len(entries) > LOG_SHOWN and more_url:
        more = format_html('<p><a href="{}">The whole moderation log</a></p>', more_url)
    return format_html(
        '<table class="moderation-log"><thead><tr><th>When</th><th>Who</th><th>What</th>'
        "<th>Why</th></tr></thead><tbody>{}</tbody></table>{}",
        rows,
        more,
    )


def log_url(**filters: Any) -> str:
    """The moderation log's change list, filtered (``user__id__exact=3``)."""
    return reverse("admin:moderation_moderationaction_changelist") + "?" + urlencode(filters)
