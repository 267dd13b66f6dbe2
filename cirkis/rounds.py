"""How a CirKis round ends, and with it the game or, in the long game, the next round begins.

Pure Python, no Django. `cirkis.rules` calls `end_round` when a placement ends the round being
played, with one of three reasons (checked in this order after the placement was scored, see
`cirkis.rules`):

* ``"target"`` — a seat has 40 or more points in this round (``round_scores``; several seats
  arriving together: the highest score wins, as always);
* ``"went_out"`` — the placer placed its last piece. Going out always scores `GO_OUT_BONUS` (10),
  also when the same piece took a seat to 40 (the reason is then ``"target"``, and the
  ``went_out`` event is there all the same);
* ``"blocked"`` — every seat in turn, the placer included, lost its turn: nobody can place.

Outside the long game the round is the game: it ends with that reason (``finished``, and a
``game_over`` event).

The long game (option ``long_game``) plays rounds until a seat's total reaches `LONG_TARGET`
(100). Each round is a normal game as above — it ends at 40 in the round, by going out or
blocked — and ``scores`` add up over the rounds. When a round ends:

1. if some seat's total is 100 or more, the game ends, ``"target"`` (a total that reaches 100
   during a round does not end that round: the game ends *after* the round);
2. a round in which nobody scored a point (``round_scores`` all 0; such a round was blocked, as
   40 and going out both score) adds one to ``scoreless_rounds``, any other round sets it to 0;
   when it reaches `SCORELESS_ROUNDS` (three in a row) the game ends, ``"blocked"``, so a long
   game always ends;
3. otherwise a ``round_over`` event (``reason``: how the round ended, ``round``: its number) and
   round ``r + 1`` begins: board cleared, every seat's full set, Leader, free turn, first-Sliver
   flag, completed shapes and ``round_scores`` reset, totals kept, started by seat ``(r + 1) mod
   seats`` (round ``r``, from 0, is started by seat ``r mod seats``).
"""

from __future__ import annotations

from dataclasses import replace

from cirkis.state import FULL_SET, LONG_TARGET, SCORELESS_ROUNDS, Event, GameState

__all__ = ["end_round", "game_over", "next_round"]


def game_over(state: GameState, reason: str, events: list[Event]) -> GameState:
    """`state` finished for `reason`, with a ``game_over`` event after `events`."""
    events.append(Event(type="game_over", reason=reason))
    return replace(state, finished=reason, free_turn=False, events=tuple(events))


def next_round(state: GameState, *, scoreless_rounds: int) -> GameState:
    """The first moment of the round after `state`'s: an empty board, full sets, totals kept."""
    seats = state.seats
    number = state.round + 1
    return replace(
        state,
        covered=(0,) * seats,
        pieces_left=(FULL_SET,) * seats,
        round_scores=(0,) * seats,
        turn=number % seats,
        leader=None,
        leader_seat=None,
        free_turn=False,
        first_sliver_played=False,
        completed=(),
        lost_turns=(),
        finished=None,
        round=number,
        scoreless_rounds=scoreless_rounds,
    )


def end_round(state: GameState, reason: str, events: list[Event]) -> GameState:
    """The state after the round of `state` ended for `reason` (see the module docstring).

    `state` is the position right after the placement that ended the round, scored; `events`
    are that placement's events so far (this appends to them).
    """
    if not state.long_game:
        return game_over(state, reason, events)
    if max(state.scores) >= LONG_TARGET:
        return game_over(state, "target", events)
    scoreless = state.scoreless_rounds + 1 if max(state.round_scores) == 0 else 0
    if scoreless >= SCORELESS_ROUNDS:
        return game_over(replace(state, scoreless_rounds=scoreless), "blocked", events)
    events.append(Event(type="round_over", reason=reason, round=state.round))
    return replace(next_round(state, scoreless_rounds=scoreless), events=tuple(events))
