"""The typed OpenAPI schema of the games API, built per game kind from the registry.

drf-spectacular extensions, registered when the games app is ready (`GamesConfig.ready`).

Library seam (UPGRADING.md, "drf-spectacular"): drf-spectacular==0.30.0. Besides the documented
extension classes it uses `drf_spectacular.plumbing.ResolvedComponent`, `force_instance` and
`get_doc`, helpers outside the documented API. Why: the envelope, the moves and the frames are
typed per game kind, a `oneOf` of the kinds' own components built from the registry, which no
public hook of drf-spectacular composes (no figure: a schema, not a cost).
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent, force_instance, get_doc
from rest_framework import serializers
from rest_framework.fields import empty

from greycircle.api.schema import components_publish
from greycircle.games import frames, registry
from greycircle.games.serializers import (
    ConstField,
    EnumField,
    GameCreateSerializer,
    GameEnvelopeSerializer,
    GameSummarySerializer,
    KindField,
    MoveLogEntrySerializer,
    MoveRequestSerializer,
    OneOfSerializer,
    SeatListSerializer,
    SeatRequestSerializer,
    SeatSerializer,
    ShapeSerializer,
)

# At schema-generation time (never at import: game apps register their kinds when Django starts,
# and tests register their own) the platform reads the registry and builds, per kind, the envelope
# (`CirclesGame`), the summary (`CirclesGameSummary`), the create request (`CirclesGameCreate`) and
# seats typed with the kind's serializers. drf-spectacular extensions then document the platform's
# shapes as a `oneOf` of the kinds' shapes: with a discriminator on `kind` where the shape carries
# it (envelopes, summaries, create requests), plain where it does not (moves, log entries).


_PER_KIND: dict[tuple[registry.GameKind, str], type[serializers.Serializer]] = {}


def _shape(serializer_class: type[serializers.BaseSerializer] | None, **kwargs: Any) -> Any:
    """A field of the kind's shape, or free-form JSON for a kind that describes none."""
    if serializer_class is None:
        return serializers.DictField(**kwargs)
    return serializer_class(**kwargs)


def _per_kind(game_kind: registry.GameKind, role: str) -> type[serializers.Serializer]:
    """The `role` serializer (envelope, summary, create request, ...) typed for `game_kind`."""
    key = (game_kind, role)
    if key not in _PER_KIND:
        _PER_KIND[key] = _BUILDERS[role](game_kind)
    return _PER_KIND[key]


def _kind_field(game_kind: registry.GameKind) -> ConstField:
    return ConstField(
        game_kind.kind,
        enum_name=f"{game_kind.schema_name}KindEnum",
        help_text=f"The game: always `{game_kind.kind}` ({game_kind.title}).",
    )


def _ai_level_help(game_kind: registry.GameKind) -> str:
    return f"The {game_kind.title} computer player's level."


def _seat(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    return type(
        f"{game_kind.schema_name}SeatSerializer",
        (SeatSerializer,),
        {
            "__module__": __name__,
            "ai_level": EnumField(
                game_kind.ai_levels,
                enum_name=f"{game_kind.schema_name}AiLevelEnum",
                allow_null=True,
                help_text=_ai_level_help(game_kind) + " Null for a person or an open seat.",
            ),
        },
    )


def _new_seat(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    return type(
        f"{game_kind.schema_name}NewSeatSerializer",
        (SeatRequestSerializer,),
        {
            "__module__": __name__,
            "__doc__": SeatRequestSerializer.__doc__,
            "ai_level": EnumField(
                game_kind.ai_levels,
                enum_name=f"{game_kind.schema_name}AiLevelEnum",
                required=False,
                help_text=_ai_level_help(game_kind),
            ),
        },
    )


def _summary_fields(game_kind: registry.GameKind) -> dict[str, Any]:
    return {
        "__module__": __name__,
        "kind": _kind_field(game_kind),
        "options": _shape(
            game_kind.options_serializer, help_text="The game's options, defaults filled in."
        ),
        "seats": _per_kind(game_kind, "seat")(many=True),
    }


def _summary(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    return type(
        f"{game_kind.schema_name}GameSummarySerializer",
        (GameSummarySerializer,),
        {"__doc__": f"A {game_kind.title} game in a list.", **_summary_fields(game_kind)},
    )


def _envelope(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    if game_kind.move_serializer is None:
        legal_moves = serializers.ListField(child=serializers.DictField())
    else:
        legal_moves = game_kind.move_serializer(many=True)
    legal_moves.help_text = GameEnvelopeSerializer._declared_fields["legal_moves"].help_text
    return type(
        f"{game_kind.schema_name}GameSerializer",
        (GameEnvelopeSerializer,),
        {
            "__doc__": f"A {game_kind.title} game as you may see it.",
            **_summary_fields(game_kind),
            "state": _shape(
                game_kind.state_serializer,
                allow_null=True,
                help_text="The game as you may see it; null until every seat is taken.",
            ),
            "legal_moves": legal_moves,
        },
    )


def _create(game_kind: registry.GameKind) -> type[serializers.Serializer]:
    return type(
        f"{game_kind.schema_name}GameCreateSerializer",
        (GameCreateSerializer,),
        {
            "__module__": __name__,
            "__doc__": f"Start a {game_kind.title} game.",
            "kind": _kind_field(game_kind),
            "options": _shape(
                game_kind.options_serializer,
                required=False,
                help_text="The game's options; each one left out takes its default.",
            ),
            "seats": SeatListSerializer(
                child=_per_kind(game_kind, "new_seat")(),
                help_text=GameCreateSerializer._declared_fields["seats"].help_text,
            ),
        },
    )


def _log_entry(game_kind: registry.GameKind) -> type[serializers.BaseSerializer]:
    if game_kind.log_entry_serializer is not None:
        return game_kind.log_entry_serializer
    return type(
        f"{game_kind.schema_name}MoveLogEntrySerializer",
        (MoveLogEntrySerializer,),
        {"__module__": __name__},
    )


_BUILDERS = {
    "seat": _seat,
    "new_seat": _new_seat,
    "summary": _summary,
    "envelope": _envelope,
    "create": _create,
    "log_entry": _log_entry,
}


def camelize(name: str) -> str:
    """``"move_pile"`` -> ``"MovePile"``."""
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", name))


def _resolve(auto_schema: Any, serializer: Any, direction: str) -> dict[str, str]:
    return auto_schema.resolve_serializer(serializer, direction).ref


def _one_of(
    refs: dict[str, dict[str, str]], *, discriminator: str | None, description: str
) -> dict[str, Any]:
    """`oneOf` the (distinct) `refs`; with `discriminator`, mapped by their keys."""
    unique = list({ref["$ref"]: ref for ref in refs.values()}.values())
    schema: dict[str, Any] = {"oneOf": unique, "description": description}
    if discriminator:
        schema["discriminator"] = {
            "propertyName": discriminator,
            "mapping": {value: ref["$ref"] for value, ref in refs.items()},
        }
    return schema


class EnumFieldExtension(OpenApiSerializerFieldExtension):
    """An `EnumField` is a reference to its own enum component (nullable: or `NullEnum`)."""

    target_class = EnumField
    match_subclasses = True

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        field = self.target
        name = field.enum_name or (
            f"{camelize(str(field.value))}{camelize(field.field_name)}Enum"
            if isinstance(field, ConstField)
            else f"{camelize(field.field_name)}Enum"
        )
        component = ResolvedComponent(
            name=name,
            type=ResolvedComponent.SCHEMA,
            object=name,
            schema={"type": "string", "enum": list(field.choices)},
        )
        auto_schema.registry.register_on_missing(component)
        if not field.allow_null:
            return component.ref
        null = ResolvedComponent(
            name="NullEnum",
            type=ResolvedComponent.SCHEMA,
            object="NullEnum",
            schema={"enum": [None]},
        )
        auto_schema.registry.register_on_missing(null)
        return {"oneOf": [component.ref, null.ref]}


class KindFieldExtension(OpenApiSerializerFieldExtension):
    """A `KindField` is a reference to `GameKindEnum`, the kinds registered: one name wherever
    a game kind is asked for (starting a guest's game, a record, the lists' filters)."""

    target_class = KindField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> Any:
        component = ResolvedComponent(
            name="GameKindEnum",
            type=ResolvedComponent.SCHEMA,
            object="GameKindEnum",
            schema={
                "type": "string",
                "enum": [game_kind.kind for game_kind in registry.all_kinds()],
                "description": "A game kind: "
                + ", ".join(
                    f"`{game_kind.kind}` ({game_kind.title})" for game_kind in registry.all_kinds()
                )
                + ".",
            },
        )
        auto_schema.registry.register_on_missing(component)
        return component.ref


class ShapeSerializerExtension(OpenApiSerializerExtension):
    """A kind's shape as DRF maps it; closed (`additionalProperties: false`) where the engine
    refuses other keys (requests) or where the shape has no fields at all."""

    target_class = ShapeSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        if direction == "request" or not schema.get("properties"):
            schema["additionalProperties"] = False
        else:
            # The engine writes a field with a default always (e.g. options, defaults filled in).
            fields = force_instance(self.target).fields
            defaulted = [
                name
                for name, field in fields.items()
                if field.default is not empty and name in schema["properties"]
            ]
            if defaulted:
                schema["required"] = sorted({*schema.get("required", []), *defaulted})
        return schema


class OneOfSerializerExtension(OpenApiSerializerExtension):
    """A `OneOfSerializer`: `oneOf` its variants with a discriminator."""

    target_class = OneOfSerializer
    match_subclasses = True
    priority = 1

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        serializer = self.target
        refs = {
            value: _resolve(auto_schema, variant, direction)
            for value, variant in serializer.variants.items()
        }
        return _one_of(
            refs,
            discriminator=serializer.discriminator,
            description=get_doc(serializer.__class__),
        )


class _PerKindExtension(OpenApiSerializerExtension):
    """A platform shape documented as `oneOf` the per-kind shapes of every registered kind."""

    role = ""
    discriminator: str | None = "kind"

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        kinds = registry.all_kinds()
        if not kinds:
            return auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        refs = {
            game_kind.kind: _resolve(auto_schema, _per_kind(game_kind, self.role), direction)
            for game_kind in kinds
        }
        return _one_of(
            refs,
            discriminator=self.discriminator,
            description=get_doc(self.target_class)
            + " One shape per game kind"
            + (f", told apart by `{self.discriminator}`." if self.discriminator else "."),
        )


class GameSummaryExtension(_PerKindExtension):
    target_class = GameSummarySerializer
    role = "summary"


class GameEnvelopeExtension(_PerKindExtension):
    target_class = GameEnvelopeSerializer
    role = "envelope"


class GameCreateExtension(_PerKindExtension):
    target_class = GameCreateSerializer
    role = "create"


class MoveLogEntryExtension(_PerKindExtension):
    target_class = MoveLogEntrySerializer
    role = "log_entry"
    discriminator = None


class MoveRequestExtension(OpenApiSerializerExtension):
    """The move request, its `move` being `oneOf` the move shapes of every registered kind (also
    the socket's move frame, `frames.MoveFrameSerializer`)."""

    target_class = MoveRequestSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> Any:
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        refs = {
            game_kind.kind: _resolve(auto_schema, game_kind.move_serializer, direction)
            for game_kind in registry.all_kinds()
            if game_kind.move_serializer is not None
        }
        if refs and len(refs) == len(registry.all_kinds()):
            schema["properties"]["move"] = _one_of(
                refs,
                discriminator=None,
                description="The move, in the game's own JSON: one of the kinds' move shapes "
                "(the game's `legal_moves` lists every legal one).",
            )
        return schema


# The sockets' frames, beside the REST shapes they carry.
components_publish(*frames.PUBLISHED)
