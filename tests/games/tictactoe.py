"""A tiny game for testing the platform: tic-tac-toe on cells 0-8, seat 0 plays X and starts."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from greycircle.games.engine import IllegalMove, LoggedMove, Outcome
from greycircle.games.registry import GameKind

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@dataclass(frozen=True)
class State:
    cells: tuple[int | None, ...]
    turn: int


class TicTacToe:
    kind = "tictactoe"
    min_seats = 2
    max_seats = 2

    def new_game(self, seats: int, *, seed: int, options: Mapping[str, Any]) -> State:
        return State(cells=(None,) * 9, turn=0)

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        if set(options) - {"note"}:
            raise IllegalMove("malformed", "Tic-tac-toe takes no options but a note.")
        return dict(options)

    def _winner(self, state: State) -> int | None:
        for a, b, c in LINES:
            if state.cells[a] is not None and state.cells[a] == state.cells[b] == state.cells[c]:
                return state.cells[a]
        return None

    def to_move(self, state: State) -> int | None:
        if self._winner(state) is not None or None not in state.cells:
            return None
        return state.turn

    def legal_moves(self, state: State) -> list[int]:
        if self.to_move(state) is None:
            return []
        return [cell for cell, owner in enumerate(state.cells) if owner is None]

    def play(self, state: State, move: int) -> State:
        if move not in self.legal_moves(state):
            raise IllegalMove("illegal_move", f"Cell {move} is taken.")
        cells = list(state.cells)
        cells[move] = state.turn
        return State(cells=tuple(cells), turn=1 - state.turn)

    def outcome(self, state: State) -> Outcome | None:
        if self.to_move(state) is not None:
            return None
        winner = self._winner(state)
        scores = [int(winner == seat) for seat in (0, 1)]
        return Outcome(
            scores, [] if winner is None else [winner], "line" if winner is not None else "draw"
        )

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return {"cells": list(state.cells)}

    def parse_move(self, data: Mapping[str, Any]) -> int:
        cell = data.get("cell")
        if not isinstance(cell, int) or isinstance(cell, bool) or not 0 <= cell < 9:
            raise IllegalMove("malformed", 'A move is {"cell": 0-8}.')
        return cell

    def move_to_json(self, move: int) -> dict[str, Any]:
        return {"cell": move}

    def log_entry(self, before: State, move: int, after: State) -> LoggedMove:
        return LoggedMove(public={"cell": move}, private={before.turn: {"mine": True}})

    def encode(self, state: State) -> dict[str, Any]:
        return {"cells": list(state.cells), "turn": state.turn}

    def decode(self, data: Mapping[str, Any]) -> State:
        return State(cells=tuple(data["cells"]), turn=data["turn"])


RULES = TicTacToe()


def choose_move(state: State, *, level: str, seed: int, budget_ms: int) -> int:
    moves = RULES.legal_moves(state)
    if level == "first":
        return moves[0]
    return random.Random(seed).choice(moves)


GAME_KIND = GameKind(
    rules=RULES, computer=choose_move, ai_levels=("first", "random"), title="Tic-tac-toe"
)
