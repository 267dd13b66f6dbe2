"""How a game that is over ended, in words, for one viewer: what game lists and profiles show
("You won 38-26 on discs", "bob won: carol resigned", "Tied 32-32").

Read only from the game's status, its outcome (scores, winners, reason) and its seats' names:
what every seat and spectator may see once the game is over, never a state (so never a hand).

Choices:
- From a seat's side a game is won when it is the only winner, tied when nobody won or it shared
  the win, lost otherwise (the profile's statistics count them so too).
- The score is shown when it means something: not after a resignation or a win on time, which
  end the game with every score 0. Between two seats it heads the sentence, the viewer's (or for a
  spectator the winner's) first; with more, each seat's score goes beside its name.
- A winner whose score another seat has too won on the kind's tie-break, whatever the reason the
  round ended for: it says so rather than leave "won 0-0" unexplained.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from greycircle.games import registry
from greycircle.games.models import GameStatus

# Reasons the platform ends a game for, whatever its kind (services.game_resign, the claim on time).
RESIGNATION = "resignation"
TIMEOUT = "timeout"
# Why a game was aborted, the `reason` of an aborted game's outcome (which has no winners or
# scores: it counts for nobody): a seat's first move did not come in time (its `seat`;
# games.flags), or the staff stopped it (services.game_abort). Games aborted before the reason
# was kept have no outcome.
ABORT_NO_FIRST_MOVE = "no_first_move"
ABORT_STAFF = "staff"
# Reasons after which the scores are all 0 and mean nothing.
SCORELESS = frozenset({RESIGNATION, TIMEOUT})


@dataclass(frozen=True)
class GameResult:
    """`result`: "won", "lost" or "tied" from the viewer's seat, None for a spectator or an
    aborted game; `text`: the sentence; `scored`: the scores are worth showing."""

    result: str | None
    text: str
    scored: bool


def seat_result(*, seat: int, outcome: Mapping[str, Any]) -> str:
    """ "won", "lost" or "tied" for `seat` (see the module)."""
    winners = list(outcome.get("winners") or [])
    if seat in winners:
        return "won" if len(winners) == 1 else "tied"
    return "tied" if not winners else "lost"


def abort_words(
    outcome: Mapping[str, Any] | None, *, seats: Sequence[Mapping[str, Any]], you: int | None
) -> str:
    """Why an aborted game was: "Aborted: bob did not make a first move in time" ("you" for the
    viewer's seat), "Stopped by the staff", or "Aborted" when the game kept no reason."""
    reason = (outcome or {}).get("reason")
    if reason == ABORT_STAFF:
        return "Stopped by the staff"
    if reason == ABORT_NO_FIRST_MOVE:
        seat = (outcome or {}).get("seat")
        name = next((s["name"] for s in seats if s["seat"] == seat), "a player")
        return f"Aborted: {'you' if seat == you else name} did not make a first move in time"
    return "Aborted"


def _names(words: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def game_result_for(
    *,
    kind: str,
    status: str,
    outcome: Mapping[str, Any] | None,
    seats: Sequence[Mapping[str, Any]],
    you: int | None,
) -> GameResult | None:
    """How the game ended for the viewer in seat `you` (None: a spectator); None while it is not
    over. `seats` as `selectors.seats_json` gives them (`seat`, `name`)."""
    if status == GameStatus.ABORTED:
        return GameResult(
            result=None, text=abort_words(outcome, seats=seats, you=you), scored=False
        )
    if status != GameStatus.FINISHED or not outcome or "winners" not in outcome:
        return None
    winners: list[int] = list(outcome["winners"])
    scores: list[int] = list(outcome.get("scores") or [])
    reason = str(outcome.get("reason") or "")
    name_of = {seat["seat"]: seat["name"] for seat in seats}
    losers = [index for index in name_of if index not in winners]
    scored = reason not in SCORELESS and len(scores) == len(name_of)
    result = seat_result(seat=you, outcome=outcome) if you is not None else None

    if not winners:
        verdict = "Tied"
    elif you is not None and you in winners:
        partners = [name_of[index] for index in winners if index != you]
        verdict = f"You shared the win with {_names(partners)}" if partners else "You won"
    elif you is not None:
        verdict = f"You lost to {_names([name_of[index] for index in winners])}"
        if len(name_of) == 2:
            verdict = "You lost"
    elif len(winners) == 1:
        verdict = f"{name_of[winners[0]]} won"
    else:
        verdict = f"{_names([name_of[index] for index in winners])} shared the win"

    if reason == RESIGNATION and len(losers) == 1:
        # Everybody but the player who resigned won.
        if losers[0] == you:
            return GameResult(result=result, text="You resigned", scored=False)
        return GameResult(
            result=result, text=f"{verdict}: {name_of[losers[0]]} resigned", scored=False
        )

    score = _score_words(scores, winners=winners, you=you) if scored else ""
    how = _reason_words(kind, reason, scores=scores, winners=winners, scored=scored)
    return GameResult(
        result=result, text=" ".join(part for part in (verdict, score, how) if part), scored=scored
    )


def _score_words(scores: list[int], *, winners: list[int], you: int | None) -> str:
    """ "38-26" between two seats: the viewer's score first, else the winner's; "" with more."""
    if len(scores) != 2:
        return ""
    first = you if you is not None else (winners[0] if winners else 0)
    return f"{scores[first]}-{scores[1 - first]}"


def _reason_words(
    kind: str, reason: str, *, scores: list[int], winners: list[int], scored: bool
) -> str:
    if reason == TIMEOUT:
        return "on time"
    if reason == RESIGNATION:
        return "by resignation"
    if (
        scored
        and winners
        and any(
            scores[index] == scores[winners[0]]
            for index in range(len(scores))
            if index not in winners
        )
    ):
        return "on the tie-break"
    try:
        return registry.get(kind).outcome_reasons.get(reason, "")
    except registry.UnknownKind:
        return ""
