"""The King's Corner admin: King's Corner games only, the piles drawn from the spectator view, the
moves in words. Read-only like every game admin (see `greycircle.games.admin.GameAdminBase`); it
needs ``kingscorner.view_kingscornergame`` (and ``kingscorner.change_kingscornergame`` to abort).

Nothing here sees a hand while the game is on: the drawing is made from the spectator view, which
has hand sizes only (the rules add every hand to it once the game is over), and the log's public
entries say that a card was drawn, never which.
"""

from __future__ import annotations

from typing import Any, Final

from django.contrib import admin
from django.template.loader import render_to_string

from greycircle.games.admin import GameAdminBase, seat_name
from greycircle.games.models import Game, GameStatus
from kingscorner.cards import RANKS, SUITS
from kingscorner.models import KingsCornerGame

SUIT_SYMBOLS: Final = dict(zip(SUITS, "♣♦♥♠", strict=True))
SUIT_WORDS: Final = dict(zip(SUITS, ("clubs", "diamonds", "hearts", "spades"), strict=True))
RANK_WORDS: Final = dict(
    zip(
        RANKS,
        ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"),
        strict=True,
    )
)
# The table as players see it: corners diagonal, foundations beside the stock in the middle.
LAYOUT: Final = (("NW", "N", "NE"), ("W", None, "E"), ("SW", "S", "SE"))
PILE_WORDS: Final = {
    "N": "North",
    "E": "East",
    "S": "South",
    "W": "West",
    "NE": "North-east corner",
    "SE": "South-east corner",
    "SW": "South-west corner",
    "NW": "North-west corner",
}


def card_text(name: str) -> str:
    """``"TD"`` -> ``"10♦"``."""
    rank, suit = name[:-1], name[-1:]
    return f"{'10' if rank == 'T' else rank}{SUIT_SYMBOLS.get(suit, suit)}"


def card(name: str) -> dict[str, Any]:
    rank, suit = name[:-1], name[-1:]
    return {
        "text": card_text(name),
        "words": f"{RANK_WORDS.get(rank, rank)} of {SUIT_WORDS.get(suit, suit)}",
        "red": suit in ("D", "H"),
    }


@admin.register(KingsCornerGame)
class KingsCornerGameAdmin(GameAdminBase):
    kind = KingsCornerGame.rules.kind

    class Media:
        css = {"all": ["kingscorner/admin.css"]}

    @admin.display(description="table")
    def spectator_view(self, game: Game) -> str:
        return super().spectator_view(game)

    def render_view(self, game: Game, view: dict[str, Any], seat_names: list[str]) -> str:
        piles: dict[str, list[str]] = view["piles"]

        def pile(name: str) -> dict[str, Any]:
            cards = [card(c) for c in piles.get(name, [])]
            return {
                "name": name,
                "words": PILE_WORDS[name],
                "corner": len(name) == 2,
                "cards": cards,
            }

        # A resigned or aborted game is over whatever its position says.
        to_move = view.get("to_move") if game.status == GameStatus.ACTIVE else None
        final_hands = view.get("final_hands")  # only in a finished game's view
        penalties = view.get("penalties")
        seats = [
            {
                "seat": seat,
                "name": seat_name(seat_names, seat),
                "hand_size": size,
                "to_move": seat == to_move,
                "final_hand": None if final_hands is None else [card(c) for c in final_hands[seat]],
                "penalty": None if penalties is None else penalties[seat],
            }
            for seat, size in enumerate(view["hand_sizes"])
        ]
        context = {
            "rows": [[None if name is None else pile(name) for name in row] for row in LAYOUT],
            "stock": view["stock"],
            "seats": seats,
            "to_move": None if to_move is None else seat_name(seat_names, to_move),
            "plays_this_turn": view.get("plays_this_turn", 0),
            "idle_turns": view.get("idle_turns", 0),
            "over": final_hands is not None,
            "status": game.get_status_display(),
        }
        return render_to_string("kingscorner/admin/position.html", context)

    def describe_move(self, entry: dict[str, Any], seat: int, seat_names: list[str]) -> str:
        """``alice played 7♦ on N``; a draw is only ever ``drew a card`` (the card is private)."""
        who = seat_name(seat_names, seat)
        action = entry.get("action")
        if action == "play":
            return f"{who} played {card_text(str(entry.get('card', '?')))} on {entry.get('to')}"
        if action == "move_pile":
            return f"{who} moved the pile {entry.get('from')} onto {entry.get('to')}"
        if action == "end_turn":
            if entry.get("drew"):
                return f"{who} ended the turn and drew a card"
            return f"{who} ended the turn (the stock is empty: no card drawn)"
        return f"{who}: {action}"
