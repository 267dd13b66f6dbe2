"""The new-game form: one per game kind, with one chooser per seat after the creator's and the
kind's options, built from its options serializer (`GameKind.options_serializer`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from rest_framework import serializers

from accounts.selectors import username_key, users_by_username
from greycircle.games.clocks import (
    INCREMENT_MAX,
    MINUTES_MAX,
    MINUTES_MIN,
    TimeControl,
    time_control_check,
)
from greycircle.games.models import DaysPerMove, GameSpeed, OnDecline
from greycircle.games.registry import GameKind
from greycircle.games.services import SeatSpec

NOBODY = ""
OPEN = "open"
FRIEND = "user"
COMPUTER_PREFIX = "ai:"
OPTION_PREFIX = "option_"
# The time control's choice that takes the minutes and increment boxes.
CUSTOM = "custom"
RATED, CASUAL = "rated", "casual"

_CODE = re.compile(r"`([^`]+)`")


def _help_html(text: Any) -> SafeString:
    """A serializer's help text (plain text, `code` in backticks) as HTML for the form."""
    return mark_safe(_CODE.sub(r"<code>\1</code>", escape(str(text or ""))))


def _default(field: serializers.Field) -> Any:
    if field.default is not serializers.empty and not callable(field.default):
        return field.default
    return None


def option_form_field(name: str, field: serializers.Field) -> forms.Field | None:
    """The form field for one option of an options serializer, or None for a type the form does
    not offer (the option then takes its default): booleans are checkboxes, choices a select,
    integers a number box, strings a text box."""
    common: dict[str, Any] = {
        "label": field.label or capfirst(name.replace("_", " ")),
        "help_text": _help_html(field.help_text),
    }
    default = _default(field)
    if isinstance(field, serializers.BooleanField):
        # Unticked is false: a checkbox cannot be left out.
        return forms.BooleanField(required=False, initial=bool(default), **common)
    if isinstance(field, serializers.ChoiceField) and not isinstance(
        field, serializers.MultipleChoiceField
    ):
        values = {str(value): value for value in field.choices}
        choices = [(str(value), label) for value, label in field.choices.items()]
        if not field.required and default is None:
            choices.insert(0, ("", "(default)"))
        return forms.TypedChoiceField(
            choices=choices,
            coerce=values.__getitem__,
            empty_value=None,
            required=field.required,
            initial=None if default is None else str(default),
            **common,
        )
    if isinstance(field, serializers.IntegerField):
        return forms.IntegerField(
            min_value=field.min_value,
            max_value=field.max_value,
            required=field.required,
            initial=default,
            **common,
        )
    if isinstance(field, serializers.CharField):
        return forms.CharField(
            max_length=field.max_length,
            min_length=field.min_length,
            required=field.required and not field.allow_blank,
            initial=default,
            **common,
        )
    return None


def _messages(errors: Any) -> list[str]:
    """DRF's error details (a list, or a dict of them for a nested shape) as plain messages."""
    if isinstance(errors, Mapping):
        return [message for value in errors.values() for message in _messages(value)]
    if isinstance(errors, list | tuple):
        return [message for value in errors for message in _messages(value)]
    return [str(errors)]


class NewGameForm(forms.Form):
    """Seats 1.. of a new game (a computer at some level, an open seat, a friend, or nobody), the
    time per move, what a declined invitation does (`on_decline`, as the API takes it) and the
    kind's options.

    `cleaned_data["opponents"]` holds the seats and `cleaned_data["options"]` the options as the
    API takes them (JSON values, checked by the kind's options serializer); the engine's
    `validate_options`, through `services.game_create`, stays the authority on them.

    The game is correspondence (`days_per_move`) or live (`speed`): a clock per seat with one of
    the kind's `clock_presets` or a custom `minutes` + `increment`; `cleaned_data["time_control"]`
    is then its `TimeControl` (None for correspondence), checked as the API checks it. `rating`
    makes it rated or casual (`cleaned_data["rated"]`).

    `can_invite=False` (a guest, whom `services.game_create` lets invite nobody) leaves out the
    friend's seat, its username boxes and what a declined invitation does.
    """

    def __init__(self, *args, game_kind: GameKind, can_invite: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.game_kind = game_kind
        self.can_invite = can_invite
        rules = game_kind.rules
        choices = [
            *(
                (f"{COMPUTER_PREFIX}{level}", f"Computer ({level})")
                for level in game_kind.ai_levels
            ),
            (OPEN, "Open seat (anyone may join)"),
            *([(FRIEND, "A friend (username below)")] if can_invite else []),
        ]
        for index in range(1, rules.max_seats):
            optional = index >= rules.min_seats
            self.fields[f"seat_{index}"] = forms.ChoiceField(
                label=f"Seat {index + 1}",
                choices=[(NOBODY, "Nobody"), *choices] if optional else choices,
                initial=NOBODY if optional else f"{COMPUTER_PREFIX}{game_kind.ai_levels[0]}",
                required=not optional,
            )
            if can_invite:
                self.fields[f"username_{index}"] = forms.CharField(
                    label=f"Seat {index + 1}: friend's username",
                    required=False,
                    max_length=150,
                    widget=forms.TextInput(attrs={"autocomplete": "off", "data-friend-box": ""}),
                )
        self.fields["days_per_move"] = forms.TypedChoiceField(
            label="Time per move",
            choices=DaysPerMove.choices,
            coerce=int,
            required=False,  # left out: the default
            empty_value=int(DaysPerMove.THREE),
            initial=DaysPerMove.THREE,
            help_text="In a game between people: a day before it runs out the player is "
            "reminded; then the others may claim the win"
            + (
                ", or, with three or more players, a computer takes the absent player's seat"
                if game_kind.takeover_level
                else ""
            )
            + ". No limit against computers.",
        )
        self._add_timing_fields(game_kind)
        if can_invite:
            # As the API's `on_decline`; it matters only when the game invites someone.
            self.fields["on_decline"] = forms.TypedChoiceField(
                label="If an invitation is declined",
                choices=OnDecline.choices,
                coerce=OnDecline,
                required=False,  # left out: the default
                empty_value=OnDecline.CANCEL,
                initial=OnDecline.CANCEL,
                help_text="What a declined, withdrawn or expired invitation does: cancel the "
                "game, or open that seat to anyone who wants to join.",
            )
        self.option_names: list[str] = []
        serializer_class = game_kind.options_serializer
        if serializer_class is not None:
            for name, field in serializer_class().fields.items():
                if field.read_only:
                    continue
                form_field = option_form_field(name, field)
                if form_field is not None:
                    self.fields[f"{OPTION_PREFIX}{name}"] = form_field
                    self.option_names.append(name)

    def _add_timing_fields(self, game_kind: GameKind) -> None:
        self.fields["speed"] = forms.ChoiceField(
            label="Timing",
            choices=[
                (GameSpeed.CORRESPONDENCE, "Correspondence: days per move"),
                (GameSpeed.LIVE, "Live: a clock for each player"),
            ],
            widget=forms.RadioSelect,
            initial=GameSpeed.CORRESPONDENCE,
            required=False,  # left out: correspondence, as before live games
        )
        presets = [(control.label, control.label) for control in game_kind.clock_presets]
        self.fields["time_control"] = forms.ChoiceField(
            label="Time control (minutes + seconds added per turn)",
            choices=[*presets, (CUSTOM, "Custom")],
            widget=forms.RadioSelect,
            initial=presets[0][0] if presets else CUSTOM,
            required=False,
        )
        self.fields["minutes"] = forms.IntegerField(
            label="Minutes each",
            min_value=MINUTES_MIN,
            max_value=MINUTES_MAX,
            required=False,
            help_text=f"{MINUTES_MIN} to {MINUTES_MAX}.",
        )
        self.fields["increment"] = forms.IntegerField(
            label="Seconds added per turn",
            min_value=0,
            max_value=INCREMENT_MAX,
            required=False,
            help_text=f"0 to {INCREMENT_MAX}.",
        )
        self.fields["rating"] = forms.ChoiceField(
            label="Rating",
            choices=[(RATED, "Rated"), (CASUAL, "Casual: no rating changes")],
            widget=forms.RadioSelect,
            initial=RATED,
            required=False,
        )

    def seat_pairs(self) -> list[tuple[forms.BoundField, forms.BoundField | None]]:
        """Each seat's chooser and its friend's username box (None where nobody is invited)."""
        return [
            (
                self[f"seat_{index}"],
                self[f"username_{index}"] if self.can_invite else None,
            )
            for index in range(1, self.game_kind.rules.max_seats)
        ]

    def option_fields(self) -> list[forms.BoundField]:
        return [self[f"{OPTION_PREFIX}{name}"] for name in self.option_names]

    def clean(self) -> dict:
        cleaned = super().clean()
        cleaned["opponents"] = self._clean_seats(cleaned)
        cleaned["options"] = self._clean_options(cleaned)
        cleaned["time_control"] = self._clean_time_control(cleaned)
        cleaned["rated"] = cleaned.get("rating") != CASUAL
        cleaned.setdefault("on_decline", OnDecline.CANCEL)  # nobody invited: it cannot matter
        return cleaned

    def _clean_time_control(self, cleaned: dict[str, Any]) -> TimeControl | None:
        """A live game's time control (a preset, or the custom minutes and increment), or None
        for correspondence; a custom one with a box left empty is an error on that box."""
        live = cleaned.get("speed") == GameSpeed.LIVE
        choice = cleaned.get("time_control") or CUSTOM
        if not live or choice != CUSTOM:
            # Boxes shown beside the choice (without JavaScript) but not chosen are not read.
            for name in ("minutes", "increment"):
                self.errors.pop(name, None)
        if not live or "time_control" in self.errors:
            return None
        if choice != CUSTOM:
            return TimeControl.parse(choice)  # one of the kind's presets (the field checked it)
        if "minutes" in self.errors or "increment" in self.errors:
            return None
        minutes, increment = cleaned.get("minutes"), cleaned.get("increment")
        if minutes is None:
            self.add_error("minutes", "Type the minutes each player has, for a custom clock.")
        if increment is None:
            self.add_error("increment", "Type the seconds added per turn (0 for none).")
        if minutes is None or increment is None:
            return None
        try:
            return time_control_check(minutes=minutes, increment=increment)
        except ValueError as error:
            self.add_error(None, str(error))
            return None

    def _clean_seats(self, cleaned: dict[str, Any]) -> list[SeatSpec]:
        seats = range(1, self.game_kind.rules.max_seats)
        users = users_by_username(
            usernames=[
                cleaned.get(f"username_{index}", "")
                for index in seats
                if cleaned.get(f"seat_{index}") == FRIEND
            ]
        )
        opponents: list[SeatSpec] = []
        for index in seats:
            choice = cleaned.get(f"seat_{index}", NOBODY)
            username = cleaned.get(f"username_{index}", "").strip()
            if choice != FRIEND and username:
                chosen = dict(self.fields[f"seat_{index}"].choices).get(choice, choice)
                self.add_error(
                    f"username_{index}",
                    f"Seat {index + 1} is “{chosen}”, which takes no username: choose "
                    f"“A friend” to invite {username}, or clear the name.",
                )
                continue
            if choice == NOBODY:
                continue
            if choice == OPEN:
                opponents.append(SeatSpec())
            elif choice == FRIEND:
                if not username:
                    self.add_error(f"username_{index}", "Type your friend's username.")
                    continue
                user = users.get(username_key(username))
                if user is None:
                    self.add_error(f"username_{index}", f"No player is called {username!r}.")
                    continue
                opponents.append(SeatSpec(user=user))
            else:
                opponents.append(SeatSpec(ai_level=choice.removeprefix(COMPUTER_PREFIX)))
        return opponents

    def _clean_options(self, cleaned: dict[str, Any]) -> dict[str, Any]:
        """The options as JSON, checked by the kind's options serializer; its errors go on the
        fields they are about."""
        options: dict[str, Any] = {}
        for name in self.option_names:
            field_name = f"{OPTION_PREFIX}{name}"
            if field_name in self.errors:
                return {}
            value = cleaned.get(field_name)
            if value is None or (value == "" and not self.fields[field_name].required):
                continue  # left out: the option takes its default
            options[name] = value
        serializer_class = self.game_kind.options_serializer
        if serializer_class is None:
            return options
        serializer = serializer_class(data=options)
        if not serializer.is_valid():
            for key, errors in serializer.errors.items():
                field_name = f"{OPTION_PREFIX}{key}"
                self.add_error(field_name if field_name in self.fields else None, _messages(errors))
        return options
