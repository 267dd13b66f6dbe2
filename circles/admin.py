"""The Circles admin: Circles games only, the board drawn from the spectator view, the moves in
words. Read-only like every game admin (see `greycircle.games.admin.GameAdminBase`); it needs
``circles.view_circlesgame`` (and ``circles.change_circlesgame`` to abort a game)."""

from __future__ import annotations

from typing import Any, Final

from django.contrib import admin
from django.template.loader import render_to_string

from circles.models import CirclesGame
from circles.rules import COLOUR_NAMES, COLUMNS
from greycircle.games.admin import GameAdminBase, seat_name
from greycircle.games.models import Game, GameStatus

SQUARE: Final = 40  # pixels per square in the drawing
MARGIN: Final = 20  # room for the coordinates
DISC_FILLS: Final = {"W": "#f8f8f4", "B": "#1f1f1f"}


def who(seat: int, names: list[str]) -> str:
    """``White (alice)``."""
    colour = COLOUR_NAMES[seat] if seat in (0, 1) else f"Seat {seat + 1}"
    return f"{colour} ({seat_name(names, seat)})"


@admin.register(CirclesGame)
class CirclesGameAdmin(GameAdminBase):
    kind = CirclesGame.rules.kind

    class Media:
        css = {"all": ["circles/admin.css"]}

    @admin.display(description="position")
    def spectator_view(self, game: Game) -> str:
        return super().spectator_view(game)

    def render_view(self, game: Game, view: dict[str, Any], seat_names: list[str]) -> str:
        board: list[str] = view["board"]
        discs: list[dict[str, Any]] = []
        for row, cells in enumerate(board):
            for column, cell in enumerate(cells):
                if cell in DISC_FILLS:
                    discs.append(
                        {
                            "square": f"{COLUMNS[column]}{row + 1}",
                            "colour": "white" if cell == "W" else "black",
                            "fill": DISC_FILLS[cell],
                            "cx": MARGIN + column * SQUARE + SQUARE // 2,
                            "cy": MARGIN + row * SQUARE + SQUARE // 2,
                        }
                    )
        last = view.get("last_move")
        last_xy = None
        if last:
            column, row = COLUMNS.index(last[0]), int(last[1:]) - 1
            last_xy = (MARGIN + column * SQUARE + SQUARE // 2, MARGIN + row * SQUARE + SQUARE // 2)
        size = MARGIN + 8 * SQUARE + 4
        # A resigned or aborted game is over whatever its position says.
        to_move = view.get("to_move") if game.status == GameStatus.ACTIVE else None
        context = {
            "size": size,
            "board_size": 8 * SQUARE,
            "margin": MARGIN,
            "radius": SQUARE * 2 // 5,
            "lines": [MARGIN + i * SQUARE for i in range(1, 8)],
            "columns": [
                (letter, MARGIN + i * SQUARE + SQUARE // 2) for i, letter in enumerate(COLUMNS)
            ],
            "rows": [(i + 1, MARGIN + i * SQUARE + SQUARE // 2) for i in range(8)],
            "discs": discs,
            "last_move": last,
            "last_xy": last_xy,
            "counts": [
                {"seat": seat, "who": who(seat, seat_names), "discs": count}
                for seat, count in enumerate(view["discs"])
            ],
            "to_move": None if to_move is None else who(to_move, seat_names),
            "passed": [who(seat, seat_names) for seat in view.get("passed", [])],
            "record": view.get("record", ""),
            "status": game.get_status_display(),
        }
        return render_to_string("circles/admin/position.html", context)

    def describe_move(self, entry: dict[str, Any], seat: int, seat_names: list[str]) -> str:
        """``White (alice) c5, flipping d5`` — and who had to pass straight after it."""
        flipped = entry.get("flipped", [])
        count = len(flipped)
        text = f"{who(seat, seat_names)} {entry.get('square', '?')}, flipping {count} "
        text += f"disc{'' if count == 1 else 's'}"
        if flipped:
            text += f" ({', '.join(flipped)})"
        for passed in entry.get("passed", []):
            text += f"; {who(passed, seat_names)} had no move and passed"
        return text
