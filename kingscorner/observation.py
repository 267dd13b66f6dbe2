"""What a computer seat knows of a King's Corner game: its own view, never another hand or the
stock's order. Its own module so that the players (kingscorner.ai, kingscorner.ai_search) share it
without importing each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Observation:
    """What the seat to move knows: its hand, the piles, the hand sizes, the stock's size."""

    seat: int
    hand: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    stock: int
    plays_this_turn: int = 0
    idle_turns: int = 0
