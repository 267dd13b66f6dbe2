"""The Play form: seats, the username box, and each kind's options built from its serializer."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework import serializers

from frontend.forms import NewGameForm
from greycircle.games import registry
from greycircle.games.clocks import TimeControl
from greycircle.games.engine import IllegalMove
from greycircle.games.models import OnDecline
from greycircle.games.serializers import JsonBooleanField, ShapeSerializer
from tests.games.tictactoe import GAME_KIND as TICTACTOE
from tests.games.tictactoe import TicTacToe

pytestmark = pytest.mark.django_db


class OptionToeOptionsSerializer(ShapeSerializer):
    """One option of each type the form offers."""

    size = serializers.IntegerField(
        min_value=3, max_value=5, default=3, help_text="Cells along a side: `3` to `5`."
    )
    speed = serializers.ChoiceField(
        choices=[("slow", "Slow"), ("fast", "Fast")], required=False, help_text="How fast."
    )
    hints = JsonBooleanField(default=True, label="Show hints", help_text="Mark <good> cells.")

    def validate_size(self, value: int) -> int:
        if value == 4:
            raise serializers.ValidationError("Four is not offered.")
        return value


class OptionToe(TicTacToe):
    kind = "optiontoe"

    def validate_options(self, options: Any) -> dict[str, Any]:
        if options.get("size") == 5 and options.get("speed") == "fast":
            raise IllegalMove("malformed", "A big board cannot be fast.")
        return {"size": 3, "hints": True, **options}


OPTIONTOE = dataclasses.replace(
    TICTACTOE,
    rules=OptionToe(),
    title="Option-toe",
    options_serializer=OptionToeOptionsSerializer,
)


@pytest.fixture
def optiontoe() -> Iterator[registry.GameKind]:
    registry.register(OPTIONTOE)
    yield OPTIONTOE
    registry.unregister(OPTIONTOE.kind)


def form_for(kind: str, data: dict[str, str] | None = None) -> NewGameForm:
    return NewGameForm(data, game_kind=registry.get(kind), prefix=kind)


def test_each_option_type_becomes_its_form_field(optiontoe):
    form = form_for("optiontoe")

    size, speed, hints = form.option_fields()
    assert (size.name, size.label, size.widget_type, size.initial) == (
        "option_size",
        "Size",
        "number",
        3,
    )
    assert size.help_text == "Cells along a side: <code>3</code> to <code>5</code>."
    assert 'min="3"' in str(size)
    assert 'max="5"' in str(size)
    assert speed.widget_type == "select"
    assert speed.field.choices == [("", "(default)"), ("slow", "Slow"), ("fast", "Fast")]
    assert (hints.label, hints.widget_type, hints.initial) == ("Show hints", "checkbox", True)
    assert hints.help_text == "Mark &lt;good&gt; cells."


def test_posted_options_become_the_json_the_api_takes(optiontoe):
    form = form_for(
        "optiontoe",
        {
            "optiontoe-seat_1": "ai:first",
            "optiontoe-option_size": "5",
            "optiontoe-option_speed": "slow",
        },
    )

    assert form.is_valid(), form.errors
    assert form.cleaned_data["options"] == {"size": 5, "speed": "slow", "hints": False}


def test_options_left_empty_are_left_out(optiontoe):
    form = form_for(
        "optiontoe",
        {
            "optiontoe-seat_1": "ai:first",
            "optiontoe-option_size": "",
            "optiontoe-option_hints": "on",
        },
    )

    assert form.is_valid(), form.errors
    assert form.cleaned_data["options"] == {"hints": True}


@pytest.mark.parametrize(
    ("size", "speed", "field", "message"),
    [
        ("9", "slow", "option_size", "Ensure this value is less than or equal to 5."),
        ("x", "slow", "option_size", "Enter a whole number."),
        ("3", "warp", "option_speed", "Select a valid choice."),
        ("4", "slow", "option_size", "Four is not offered."),  # the serializer's own check
    ],
)
def test_a_bad_option_is_an_error_on_its_field(optiontoe, size, speed, field, message):
    form = form_for(
        "optiontoe",
        {
            "optiontoe-seat_1": "ai:first",
            "optiontoe-option_size": size,
            "optiontoe-option_speed": speed,
        },
    )

    assert not form.is_valid()
    assert message in form.errors[field][0]


def test_cirkis_offers_center_ring_and_the_long_game_as_checkboxes():
    form = form_for("cirkis")

    assert [(field.name, field.label, field.widget_type) for field in form.option_fields()] == [
        ("option_center_ring", "Center Ring", "checkbox"),
        ("option_long_game", "Long game (to 100)", "checkbox"),
    ]
    assert "Center Ring scoring" in form["option_center_ring"].help_text


@pytest.mark.parametrize("kind", ["circles", "kingscorner"])
def test_a_kind_without_options_shows_none(kind):
    assert form_for(kind).option_fields() == []


def test_a_kind_without_an_options_serializer_shows_none(tictactoe):
    form = form_for("tictactoe", {"tictactoe-seat_1": "ai:first"})

    assert form.option_fields() == []
    assert form.is_valid()
    assert form.cleaned_data["options"] == {}


def test_kings_corner_seats_up_to_six():
    form = form_for(
        "kingscorner", {f"kingscorner-seat_{index}": "ai:easy" for index in range(1, 6)}
    )

    assert [seat.label for seat, _ in form.seat_pairs()] == [f"Seat {n}" for n in range(2, 7)]
    assert form.is_valid(), form.errors
    assert len(form.cleaned_data["opponents"]) == 5


@pytest.mark.parametrize(
    ("choice", "shown"),
    [("ai:easy", "Computer (easy)"), ("open", "Open seat (anyone may join)"), ("", "Nobody")],
)
def test_a_username_for_a_seat_that_is_no_friends_is_refused(bob, choice, shown):
    data = {"kingscorner-seat_1": "ai:easy", "kingscorner-seat_2": choice}
    data["kingscorner-username_2"] = "bob"
    form = form_for("kingscorner", data)

    assert not form.is_valid()
    assert form.errors["username_2"] == [
        f"Seat 3 is “{shown}”, which takes no username: choose “A friend” to invite bob, "
        "or clear the name."
    ]


def test_a_friends_seat_needs_a_username():
    form = form_for("circles", {"circles-seat_1": "user", "circles-username_1": "  "})

    assert not form.is_valid()
    assert form.errors["username_1"] == ["Type your friend's username."]


def test_a_declined_invitation_cancels_the_game_unless_the_form_says_otherwise():
    form = form_for("circles", {"circles-seat_1": "ai:easy"})
    on_decline = form["on_decline"]

    assert on_decline.label == "If an invitation is declined"
    assert on_decline.initial == OnDecline.CANCEL
    assert [value for value, _ in on_decline.field.choices] == ["cancel", "open_seat"]
    assert form.is_valid(), form.errors
    assert form.cleaned_data["on_decline"] == OnDecline.CANCEL

    form = form_for("circles", {"circles-seat_1": "ai:easy", "circles-on_decline": "open_seat"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["on_decline"] == OnDecline.OPEN_SEAT


def test_an_unknown_on_decline_is_refused():
    form = form_for("circles", {"circles-seat_1": "ai:easy", "circles-on_decline": "shrug"})

    assert not form.is_valid()
    assert form.errors["on_decline"] == [
        "Select a valid choice. shrug is not one of the available choices."
    ]


def test_a_form_that_may_invite_nobody_has_no_friends_seat_username_or_on_decline():
    form = NewGameForm(
        game_kind=registry.get("kingscorner"), prefix="kingscorner", can_invite=False
    )

    for seat, username in form.seat_pairs():
        assert "user" not in [value for value, _ in seat.field.choices]
        assert username is None
    assert "on_decline" not in form.fields

    chosen = NewGameForm(
        {"kingscorner-seat_1": "open", "kingscorner-seat_2": "ai:easy"},
        game_kind=registry.get("kingscorner"),
        prefix="kingscorner",
        can_invite=False,
    )
    assert chosen.is_valid(), chosen.errors
    assert chosen.cleaned_data["on_decline"] == OnDecline.CANCEL
    refused = NewGameForm(
        {"circles-seat_1": "user", "circles-username_1": "bob"},
        game_kind=registry.get("circles"),
        prefix="circles",
        can_invite=False,
    )
    assert not refused.is_valid()
    assert "seat_1" in refused.errors


# --- timing and rating -----------------------------------------------------------------------


def test_a_game_is_correspondence_and_rated_unless_the_form_says_otherwise():
    form = form_for("circles", {"circles-seat_1": "ai:easy"})

    assert [value for value, _ in form.fields["speed"].choices] == ["correspondence", "live"]
    assert form.is_valid(), form.errors
    assert form.cleaned_data["time_control"] is None
    assert form.cleaned_data["rated"] is True


def test_a_live_game_offers_the_kinds_presets_and_a_custom_clock():
    circles = form_for("circles")
    kings_corner = form_for("kingscorner")

    assert [value for value, _ in circles.fields["time_control"].choices] == [
        "1+0",
        "3+2",
        "5+0",
        "5+3",
        "10+5",
        "15+10",
        "custom",
    ]
    assert [value for value, _ in kings_corner.fields["time_control"].choices] == [
        "3+5",
        "5+5",
        "10+10",
        "custom",
    ]


@pytest.mark.parametrize(
    ("data", "control"),
    [
        ({"circles-time_control": "3+2"}, TimeControl(3, 2)),
        (
            {"circles-time_control": "custom", "circles-minutes": "7", "circles-increment": "0"},
            TimeControl(7, 0),
        ),
        # The minutes and increment boxes count only for a custom clock.
        ({"circles-time_control": "1+0", "circles-minutes": "99"}, TimeControl(1, 0)),
    ],
)
def test_a_live_game_takes_a_preset_or_the_custom_minutes_and_increment(data, control):
    form = form_for("circles", {"circles-seat_1": "ai:easy", "circles-speed": "live", **data})

    assert form.is_valid(), form.errors
    assert form.cleaned_data["time_control"] == control


def test_a_casual_game_is_not_rated():
    form = form_for("circles", {"circles-seat_1": "ai:easy", "circles-rating": "casual"})

    assert form.is_valid(), form.errors
    assert form.cleaned_data["rated"] is False


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"kingscorner-time_control": "1+0"}, "time_control", "1+0 is not one of the available"),
        (
            {"kingscorner-time_control": "custom", "kingscorner-increment": "0"},
            "minutes",
            "Type the minutes each player has",
        ),
        (
            {"kingscorner-time_control": "custom", "kingscorner-minutes": "5"},
            "increment",
            "Type the seconds added per turn",
        ),
        (
            {"kingscorner-time_control": "custom", "kingscorner-minutes": "61"},
            "minutes",
            "less than or equal to 60",
        ),
        (
            {
                "kingscorner-time_control": "custom",
                "kingscorner-minutes": "5",
                "kingscorner-increment": "-1",
            },
            "increment",
            "greater than or equal to 0",
        ),
    ],
)
def test_a_live_clock_out_of_bounds_is_an_error_on_its_box(data, field, message):
    form = form_for(
        "kingscorner", {"kingscorner-seat_1": "ai:easy", "kingscorner-speed": "live", **data}
    )

    assert not form.is_valid()
    assert list(form.errors) == [field]
    assert message in " ".join(form.errors[field])
