"""The "why" every moderation action asks for."""

from __future__ import annotations

from django import forms

from greycircle.moderation.services import REASON_MAX_LENGTH, REASON_REQUIRED

REASON_HELP = "Recorded in the moderation log with your name and the time; other staff read it."


def reason_field(*, required: bool = True) -> forms.CharField:
    return forms.CharField(
        label="Reason",
        required=required,
        max_length=REASON_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=REASON_HELP,
        error_messages={"required": REASON_REQUIRED},
    )


class ReasonForm(forms.Form):
    reason = reason_field()
