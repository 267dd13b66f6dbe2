"""Circles computer players: the ``expert`` player's opening book.

The book is ``circles/data/book.txt`` (standard Othello lines in this board's notation, see the
file), read once on first use. Every line is replayed under the four symmetries of the start
position (the identity, the two diagonal reflections and the half turn), and every position on
the way maps to the moves the lines play there: ``book_moves(own, opp)`` is that set (empty out
of book). A line that stops being legal is a broken data file: loading raises ValueError.

Reading the packaged data file is the module's only I/O, once per process; the engine itself
stays pure (a dict lookup per move).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Final

from circles.rules import Position, parse_square

__all__ = ["SYMMETRIES", "book_lines", "book_moves", "book_table", "transform"]

SYMMETRIES: Final = ("identity", "transpose", "anti_transpose", "half_turn")
"""The transformations of the board that leave the start position as it is."""


def transform(square: int, symmetry: str) -> int:
    """`square` moved by `symmetry` (``a1 = 0`` top left: row = square // 8, column = % 8)."""
    row, column = divmod(square, 8)
    if symmetry == "transpose":
        row, column = column, row
    elif symmetry == "anti_transpose":
        row, column = 7 - column, 7 - row
    elif symmetry == "half_turn":
        row, column = 7 - row, 7 - column
    return 8 * row + column


def book_lines() -> list[list[int]]:
    """The book's lines as squares, as the data file writes them."""
    text = files("circles").joinpath("data/book.txt").read_text(encoding="utf-8")
    lines = []
    for raw in text.splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        moves = raw.split()[0]
        lines.append([parse_square(moves[i : i + 2]) for i in range(0, len(moves), 2)])
    return lines


@cache
def book_table() -> dict[tuple[int, int], frozenset[int]]:
    """``(own, opp)`` of the side to move -> the book's moves there."""
    table: dict[tuple[int, int], set[int]] = {}
    for line in book_lines():
        for symmetry in SYMMETRIES:
            position = Position.start()
            for square in line:
                moved = transform(square, symmetry)
                if not position.is_legal(moved):
                    raise ValueError(f"The opening book plays an illegal move: {line}.")
                table.setdefault((position.own, position.opponent), set()).add(moved)
                position = position.play(moved)
    return {key: frozenset(moves) for key, moves in table.items()}


def book_moves(own: int, opp: int) -> frozenset[int]:
    """The book's moves for the side owning `own` (empty when the position is not in it)."""
    return book_table().get((own, opp), frozenset())
