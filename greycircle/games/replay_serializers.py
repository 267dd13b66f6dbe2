"""Shapes of replays and analyses (`/api/v1/games/{id}/replay/`, `.../analysis/`), typed per kind.

The platform's serializers here say what every kind's replay and analysis have; the schema
documents each as `oneOf` the kinds' own shapes (`CirclesGameReplay`, `CirclesGameAnalysis`, ...),
built from the kinds' serializers as the envelope is (greycircle.games.schema). Importing this
module registers the drf-spectacular extensions that do it.

Library seam (UPGRADING.md, "drf-spectacular"): drf-spectacular==0.30.0. Uses
`drf_spectacular.plumbing.get_doc` (outside the documented API) for the kinds' descriptions, for
the same reason as greycircle.games.schema.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import get_doc
from rest_framework import serializers

from greycircle.games import registry, schema
from greycircle.games.models import GameStatus
from greycircle.games.serializers import EnumField, GameOutcomeField, KindField, SeatSerializer

ANALYSIS_STATUSES = ("not_requested", "pending", "ready", "failed")
ANALYSIS_MARKS = ("mistake", "blunder")


class ReplayStepSerializer(serializers.Serializer):
    """One step of a replay: the game after `number` moves, as you could see it then."""

    number = serializers.IntegerField(help_text="Moves played so far: 0 is the start.")
    to_move = serializers.IntegerField(
        allow_null=True, help_text="The seat to act at this step; null once the game is over."
    )
    state = serializers.DictField(help_text="The game as you could see it then (the kind's view).")
    move = serializers.DictField(
        allow_null=True,
        help_text="The move that led here, as the log shows it to you; null at the start.",
    )


class GameReplaySerializer(serializers.Serializer):
    """A game that is over, move by move: every step as you could see it at that moment (your
    seat's view then, or a spectator's), never what you could not see then."""

    id = serializers.IntegerField()
    kind = KindField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    options = serializers.DictField()
    seats = SeatSerializer(many=True)
    you = serializers.IntegerField(allow_null=True, help_text="Your seat; null for spectators.")
    outcome = GameOutcomeField(allow_null=True)
    move_count = serializers.IntegerField()
    finished_at = serializers.DateTimeField(allow_null=True)
    steps = ReplayStepSerializer(many=True, help_text="`move_count + 1` steps, the start first.")


class AnalysisPositionSerializer(serializers.Serializer):
    """The analysis of one move: what it cost the player who made it. Kinds add their own
    fields (the best move, the scores)."""

    number = serializers.IntegerField(help_text="The move's number in the log (1 is the first).")
    seat = serializers.IntegerField(help_text="The seat that moved.")
    loss = serializers.IntegerField(
        min_value=0, help_text="How much worse the move was than the best one (0: the best)."
    )
    mark = EnumField(
        ANALYSIS_MARKS,
        enum_name="AnalysisMarkEnum",
        allow_null=True,
        help_text="`mistake` or `blunder` for a move that lost much; null otherwise.",
    )


class GameAnalysisSerializer(serializers.Serializer):
    """A game's analysis by its kind's engine, computed once after the game and kept.

    `status`: `not_requested` until somebody asks for it (`POST`), then `pending` while the
    engine works (`analysed` of `total` moves done, `positions` growing), `ready`, or `failed`
    (ask again to retry). The kind's totals over the game (Circles: `seats`) are null until it
    is `ready`; until then `progress` says how far it is."""

    kind = KindField()
    status = EnumField(ANALYSIS_STATUSES, enum_name="AnalysisStatusEnum")
    analysed = serializers.IntegerField(help_text="Moves analysed so far.")
    total = serializers.IntegerField(help_text="Moves to analyse: every move of the game.")
    progress = serializers.CharField(
        help_text="How far it is, in words to show: `Not analysed yet.`, `Analysed 3 of 60 "
        "moves so far.`, `Analysed all 60 moves.` or `Failed after 3 of 60 moves.`"
    )
    requested_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)


# --- per kind ---------------------------------------------------------------------------------

_PER_KIND: dict[tuple[registry.GameKind, str], type[serializers.BaseSerializer]] = {}


def _replay_step(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    log_entry = schema._per_kind(game_kind, "log_entry")
    return type(
        f"{game_kind.schema_name}ReplayStepSerializer",
        (ReplayStepSerializer,),
        {
            "__module__": __name__,
            "__doc__": ReplayStepSerializer.__doc__,
            "state": schema._shape(
                game_kind.state_serializer,
                help_text=ReplayStepSerializer._declared_fields["state"].help_text,
            ),
            "move": log_entry(
                allow_null=True, help_text=ReplayStepSerializer._declared_fields["move"].help_text
            ),
        },
    )


def _replay(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    return type(
        f"{game_kind.schema_name}GameReplaySerializer",
        (GameReplaySerializer,),
        {
            "__module__": __name__,
            "__doc__": f"A {game_kind.title} game that is over, move by move, as you may see it.",
            "kind": schema._kind_field(game_kind),
            "options": schema._shape(game_kind.options_serializer),
            "seats": schema._per_kind(game_kind, "seat")(many=True),
            "steps": _per_kind(game_kind, "replay_step")(
                many=True, help_text=GameReplaySerializer._declared_fields["steps"].help_text
            ),
        },
    )


def _analysis(game_kind: registry.GameKind) -> type[serializers.BaseSerializer]:
    assert game_kind.analysis is not None
    return type(
        f"{game_kind.schema_name}GameAnalysisSerializer",
        (game_kind.analysis.serializer,),
        {
            "__module__": __name__,
            "__doc__": get_doc(game_kind.analysis.serializer),
            "kind": schema._kind_field(game_kind),
        },
    )


_BUILDERS = {"replay_step": _replay_step, "replay": _replay, "analysis": _analysis}


def _per_kind(game_kind: registry.GameKind, role: str) -> type[serializers.BaseSerializer]:
    key = (game_kind, role)
    if key not in _PER_KIND:
        _PER_KIND[key] = _BUILDERS[role](game_kind)
    return _PER_KIND[key]


class _OneOfKindsExtension(OpenApiSerializerExtension):
    """`oneOf` the per-kind shapes (of the kinds that have one), told apart by `kind`."""

    role = ""

    def kinds(self) -> list[registry.GameKind]:
        return registry.all_kinds()

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        kinds = self.kinds()
        if not kinds:
            return auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        refs = {
            game_kind.kind: schema._resolve(auto_schema, _per_kind(game_kind, self.role), direction)
            for game_kind in kinds
        }
        return schema._one_of(
            refs,
            discriminator="kind",
            description=get_doc(self.target_class)
            + " One shape per game kind, told apart by `kind`.",
        )


class GameReplayExtension(_OneOfKindsExtension):
    target_class = GameReplaySerializer
    role = "replay"


class GameAnalysisExtension(_OneOfKindsExtension):
    target_class = GameAnalysisSerializer
    role = "analysis"

    def kinds(self) -> list[registry.GameKind]:
        return [game_kind for game_kind in registry.all_kinds() if game_kind.analysis is not None]
