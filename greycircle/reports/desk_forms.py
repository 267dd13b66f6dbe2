"""The desk's forms: resolving a player's open reports with an action, and lifting a sanction.

Each asks why (moderation's reason field: required, kept in the log). The services check the
rest (greycircle.reports.resolution, greycircle.moderation.sanctions); these only shape input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms

from greycircle.moderation.forms import reason_field
from greycircle.moderation.models import SanctionKind
from greycircle.moderation.sanctions import DAYS_MAX, DAYS_MIN, NOTICE_MAX_LENGTH
from greycircle.reports.models import Report
from greycircle.reports.resolution import DISMISS

ACTION_CHOICES = [
    (DISMISS, "Dismiss: nothing to act on"),
    (SanctionKind.WARN, "Warn the player"),
    (SanctionKind.MUTE, "Mute their chat for some days"),
    (SanctionKind.RATED_BAR, "Bar them from rated games for some days"),
    (SanctionKind.RENAME, "Rename their offensive username"),
    (SanctionKind.DEACTIVATE, "Deactivate their account"),
]
TIMED = (SanctionKind.MUTE, SanctionKind.RATED_BAR)
SUMMARIES = {
    DISMISS: "Dismiss these reports about {name}",
    SanctionKind.WARN: "Warn {name}",
    SanctionKind.MUTE: "Mute {name}'s chat for {days} days",
    SanctionKind.RATED_BAR: "Bar {name} from rated games for {days} days",
    SanctionKind.RENAME: "Rename {name} to {username}",
    SanctionKind.DEACTIVATE: "Deactivate {name}'s account",
}


class ResolveForm(forms.Form):
    """Which of the player's open reports, what to do, for how long, and why."""

    reports = forms.TypedMultipleChoiceField(
        label="Reports",
        coerce=int,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one report."},
    )
    action = forms.ChoiceField(label="Action", choices=ACTION_CHOICES, widget=forms.RadioSelect)
    days = forms.IntegerField(
        label="Days",
        required=False,
        min_value=DAYS_MIN,
        max_value=DAYS_MAX,
        help_text=f"For a mute or a bar from rated games: {DAYS_MIN} to {DAYS_MAX} days.",
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    username = forms.CharField(
        label="New username",
        required=False,
        max_length=150,
        help_text="For a rename; leave it empty for a neutral one (player-123456).",
    )
    notice = forms.CharField(
        label="Notice to the player",
        required=False,
        max_length=NOTICE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}),
        help_text="What the player is told (empty: the usual sentence for the action). "
        "Not for a dismissal: the player is not told of one.",
    )
    reason = reason_field()

    def __init__(self, *args: Any, reports: Sequence[Report], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["reports"].choices = [
            (report.pk, f"#{report.pk}: {report.get_reason_display()}") for report in reports
        ]
        if not self.is_bound:
            self.initial.setdefault("reports", [report.pk for report in reports])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        action = cleaned.get("action")
        if action in TIMED and cleaned.get("days") is None:
            self.add_error("days", "Say for how many days.")
        if action not in TIMED:
            cleaned["days"] = None
        if action != SanctionKind.RENAME:
            cleaned["username"] = ""
        if action == DISMISS:
            cleaned["notice"] = ""
        return cleaned

    def summary(self, *, name: str) -> str:
        """What will be done to player `name`, in words (the form is valid)."""
        data = self.cleaned_data
        return SUMMARIES[data["action"]].format(
            name=name, days=data["days"], username=data["username"] or "a neutral username"
        )
