"""`{% record_import_forms %}`: a form per kind with a record notation, to import a record and
play on from it against a computer (the Play page)."""

from __future__ import annotations

from typing import Any

from django import template

from frontend.replay_forms import RecordImportForm
from greycircle.games import replays

register = template.Library()


@register.inclusion_tag("frontend/includes/record_import.html")
def record_import_forms() -> dict[str, Any]:
    """(Django hands the page's CSRF token on to the forms itself.)"""
    forms = [
        (game_kind, RecordImportForm(game_kind=game_kind, auto_id=f"import-{game_kind.kind}-%s"))
        for game_kind in replays.kinds_with_records()
    ]
    return {"forms": forms}
