"""Importing a game record into a new game against a computer (kinds with a record notation)."""

from __future__ import annotations

from django import forms

from greycircle.games.registry import GameKind


class RecordImportForm(forms.Form):
    """A record of the kind and the computer to play on against: the importer takes the first
    seat, every other seat is that computer. `services.game_create` replays the record."""

    kind = forms.CharField(widget=forms.HiddenInput)
    record = forms.CharField(
        label="Record",
        required=False,  # empty: the start position
        max_length=10_000,
        widget=forms.Textarea(attrs={"rows": 2, "spellcheck": "false", "autocomplete": "off"}),
        help_text="The moves back to back, as a game's transcript shows them (e.g. c5e6f5).",
    )
    ai_level = forms.ChoiceField(label="Play on against")

    def __init__(self, *args, game_kind: GameKind, **kwargs) -> None:
        kwargs.setdefault("initial", {})
        kwargs["initial"] = {
            "kind": game_kind.kind,
            "ai_level": game_kind.ai_levels[-1],
            **kwargs["initial"],
        }
        super().__init__(*args, **kwargs)
        self.game_kind = game_kind
        self.fields["ai_level"].choices = [
            (level, f"Computer ({level})") for level in game_kind.ai_levels
        ]
