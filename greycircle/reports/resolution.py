"""What the moderation desk does with reports: take a player's open reports, and resolve them.

Resolving is one transaction: the action (a sanction through greycircle.moderation.sanctions,
which records it in the moderation log and tells the player; or a dismissal, recorded here),
the reports marked handled with their outcome and the log entry, the reported messages marked
reviewed (a dismissed flagged message is shown again; an actioned one is hidden from everyone
but its author and staff, and removed live from the pages showing it, as lichess removes the
lines of a player it times out), and each reporter told that their report was looked at — never
what was done, nor to whom it was done beyond the name they reported.

Callers (the admin) check the staff member's permissions; these services insist on a staff
actor and a reason, and refuse (`ModerationInvalid`, nothing changed) what cannot be done.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone

from greycircle.chat import services as chat_services
from greycircle.chat.models import GameMessage
from greycircle.conversations import services as conversation_services
from greycircle.moderation import sanctions
from greycircle.moderation.errors import ModerationInvalid, ModerationPermissionDenied
from greycircle.moderation.models import ModerationAction, ModerationActionKind, SanctionKind
from greycircle.moderation.services import moderation_record, reason_clean
from greycircle.notifications import tasks as notification_tasks
from greycircle.reports.models import Report, ReportOutcome, ReportStatus

if TYPE_CHECKING:
    from accounts.models import User

DISMISS = "dismiss"
ACTIONS = (DISMISS, *SanctionKind.values)
REPORT_HANDLED_EVENT = "report_handled"


def _staff_check(actor: User) -> None:
    if not (actor.is_staff and actor.is_active):
        raise ModerationPermissionDenied("not_staff", "Only staff handle reports.")


def reports_assign(*, actor: User, user_id: int) -> int:
    """Give every open report about user `user_id` to `actor` (whoever held them before), so
    that other staff see someone is on the case. Returns how many reports."""
    _staff_check(actor)
    return Report.objects.filter(user_id=user_id, status=ReportStatus.OPEN).update(
        assigned_to=actor
    )


def reports_resolve(
    *,
    actor: User,
    report_ids: Iterable[int],
    action: str,
    reason: str,
    days: int | None = None,
    username: str | None = None,
    notice: str = "",
    now: datetime | None = None,
) -> list[Report]:
    """Resolve the open reports `report_ids`, all about one player, with `action`: `dismiss`, or
    a sanction kind (`warn`, `mute` and `rated_bar` for `days`, `rename` to `username` or a
    neutral name, `deactivate`) imposed with `reason` and `notice` as `sanction_impose` takes
    them. Returns the reports, handled.

    Refused, nothing changed: `bad_action`, `no_reports`, `not_open` (one is handled already or
    gone), `several_players`, `not_for_kind` (days, a username or a notice with a dismissal),
    and whatever `sanction_impose` refuses.
    """
    reason = reason_clean(reason)
    _staff_check(actor)
    if action not in ACTIONS:
        raise ModerationInvalid("bad_action", f"An action is one of: {', '.join(ACTIONS)}.")
    if action == DISMISS and (days is not None or username or notice):
        raise ModerationInvalid(
            "not_for_kind", "A dismissal takes no days, username or notice: nothing was changed."
        )
    ids = set(report_ids)
    if not ids:
        raise ModerationInvalid("no_reports", "Choose the reports to resolve.")
    now = now or timezone.now()
    with transaction.atomic():
        reports = list(
            Report.objects.select_for_update(of=("self",))
            .filter(pk__in=ids)
            .select_related("user")
            .order_by("pk")
        )
        if len(reports) != len(ids) or any(r.status != ReportStatus.OPEN for r in reports):
            raise ModerationInvalid(
                "not_open",
                "Some of these reports are handled already or gone: nothing was changed.",
            )
        if len({report.user_id for report in reports}) > 1:
            raise ModerationInvalid(
                "several_players", "Resolve one player's reports at a time: nothing was changed."
            )
        player = reports[0].user
        name = player.username  # as the reporters knew it, before any rename
        numbers = ", ".join(f"#{report.pk}" for report in reports)
        if action == DISMISS:
            entry = moderation_record(
                actor=actor,
                action=ModerationActionKind.REPORTS_DISMISS,
                reason=reason,
                user=player,
                description=f"Dismissed {_reports_count(len(reports))} about {name} ({numbers}).",
            )
            outcome = ReportOutcome.DISMISSED
        else:
            latest = _latest_entry_id()
            sanctions.sanction_impose(
                actor=actor,
                user_id=player.pk,
                kind=action,
                reason=reason,
                days=days,
                username=username,
                notice=notice,
            )
            # The entry the sanction wrote (a deactivation's is written by users_deactivate).
            entry = (
                ModerationAction.objects.filter(pk__gt=latest, user_id=player.pk, actor=actor)
                .order_by("-pk")
                .first()
            )
            outcome = ReportOutcome.ACTIONED
        for report in reports:
            report.status, report.outcome = ReportStatus.HANDLED, outcome
            report.handled_at, report.handled_by, report.moderation_action = now, actor, entry
        Report.objects.bulk_update(
            reports, ["status", "outcome", "handled_at", "handled_by", "moderation_action"]
        )
        _messages_review(reports, shown=outcome == ReportOutcome.DISMISSED, now=now)
        _reporters_tell(reports, actor=actor, name=name)
    return reports


def _reports_count(count: int) -> str:
    return "1 report" if count == 1 else f"{count} reports"


def _latest_entry_id() -> int:
    return ModerationAction.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def _messages_review(reports: list[Report], *, shown: bool, now: datetime) -> None:
    """Mark the reported messages reviewed, through their apps' services: a dismissal shows a
    flagged (hidden) message again and leaves a visible one visible; an action hides the
    message from everyone but its author and staff, and the pages open on it drop it."""
    game_messages = {r.game_message_id for r in reports} - {None}
    for message in GameMessage.objects.filter(pk__in=game_messages).select_related("game"):
        chat_services.game_message_review(message=message, visible=shown, now=now)
    for message_id in sorted({r.direct_message_id for r in reports} - {None}):
        conversation_services.direct_message_review(message_id=message_id, visible=shown, now=now)


def _reporters_tell(reports: list[Report], *, actor: User, name: str) -> None:
    """Queue one `report_handled` notification per reporter (in this transaction), saying only
    that the moderators looked at their report about `name`."""
    reporters = sorted({report.reporter_id for report in reports} - {None, actor.pk})
    if reporters:
        notification_tasks.notifications_enqueue(
            news=[
                {
                    "user_id": reporter_id,
                    "event": REPORT_HANDLED_EVENT,
                    "data": {"name": name},
                    "key": uuid.uuid4().hex,
                }
                for reporter_id in reporters
            ]
        )
