"""The new-game form: one per game kind, with one chooser per seat after the creator's."""

from __future__ import annotations

from django import forms

from accounts.selectors import username_key, users_by_username
from greycircle.games.registry import GameKind
from greycircle.games.services import SeatSpec

NOBODY = ""
OPEN = "open"
FRIEND = "user"
COMPUTER_PREFIX = "ai:"


class NewGameForm(forms.Form):
    """Seats 1.. of a new game: a computer at some level, an open seat, a friend, or nobody."""

    def __init__(self, *args, game_kind: GameKind, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.game_kind = game_kind
        rules = game_kind.rules
        choices = [
            *(
                (f"{COMPUTER_PREFIX}{level}", f"Computer ({level})")
                for level in game_kind.ai_levels
            ),
            (OPEN, "Open seat (anyone may join)"),
            (FRIEND, "A friend (username below)"),
        ]
        for index in range(1, rules.max_seats):
            optional = index >= rules.min_seats
            self.fields[f"seat_{index}"] = forms.ChoiceField(
                label=f"Seat {index + 1}",
                choices=[(NOBODY, "Nobody"), *choices] if optional else choices,
                initial=NOBODY if optional else f"{COMPUTER_PREFIX}{game_kind.ai_levels[0]}",
                required=not optional,
            )
            self.fields[f"username_{index}"] = forms.CharField(
                label=f"Seat {index + 1}: friend's username", required=False, max_length=150
            )

    def seat_pairs(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return [
            (self[f"seat_{index}"], self[f"username_{index}"])
            for index in range(1, self.game_kind.rules.max_seats)
        ]

    def clean(self) -> dict:
        cleaned = super().clean()
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
            if choice == NOBODY:
                continue
            if choice == OPEN:
                opponents.append(SeatSpec())
            elif choice == FRIEND:
                username = cleaned.get(f"username_{index}", "").strip()
                user = users.get(username_key(username))
                if not username or user is None:
                    self.add_error(f"username_{index}", f"No player is called {username!r}.")
                    continue
                opponents.append(SeatSpec(user=user))
            else:
                opponents.append(SeatSpec(ai_level=choice.removeprefix(COMPUTER_PREFIX)))
        cleaned["opponents"] = opponents
        return cleaned
