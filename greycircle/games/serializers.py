"""Request and response shapes of the games API. Validation of shape only: rules live in engines.

Refusals that cost nothing come first: a request is refused by the number of its seats before any
seat is looked at, and all invited players are then looked up in one query, so a request with
2,000 seats costs no more than one with two.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models.functions import Lower
from drf_spectacular.extensions import OpenApiSerializerExtension, OpenApiSerializerFieldExtension
from drf_spectacular.plumbing import ResolvedComponent, force_instance, get_doc
from rest_framework import serializers
from rest_framework.fields import empty

from accounts.usernames import normalize_username
from greycircle.api.errors import ApiError, shorten
from greycircle.games import registry
from greycircle.games.models import GameStatus
from greycircle.games.services import SeatSpec

# AbstractUser.username's length; a longer name cannot be anybody's.
USERNAME_MAX_LENGTH = 150


class KindField(serializers.ChoiceField):
    """A registered game kind, refused as `unknown_kind` (without echoing more than a few chars).

    The choices are read from the registry on every use rather than frozen at import: game apps
    register their kinds when Django starts, and tests register their own.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=(), **kwargs)

    @property
    def choices(self) -> dict[str, str]:
        return {game_kind.kind: game_kind.title for game_kind in registry.all_kinds()}

    @choices.setter
    def choices(self, value: Any) -> None:
        """Ignored: ChoiceField.__init__ sets choices; ours come from the registry."""

    @property
    def grouped_choices(self) -> dict[str, str]:
        return self.choices

    @property
    def choice_strings_to_values(self) -> dict[str, str]:
        return {kind: kind for kind in self.choices}

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, str) and data in self.choices:
            return data
        message = f"There is no game called {shorten(data)!r}."
        raise ApiError(
            code="unknown_kind", detail=message, extra={"fields": {self.field_name: [message]}}
        )

    def to_representation(self, value: Any) -> str:
        return value


def _bad_seats(detail: str) -> ApiError:
    return ApiError(code="bad_seats", detail=detail)


class SeatRequestSerializer(serializers.Serializer):
    """Exactly one of: `user` (a username to invite), `ai_level` (a computer player), `open`.

    Shape only; `GameCreateSerializer` looks the users of all seats up together.
    """

    user = serializers.CharField(required=False, max_length=USERNAME_MAX_LENGTH)
    ai_level = serializers.CharField(required=False, max_length=40)
    open = serializers.BooleanField(required=False)

    def validate(self, attrs: dict) -> dict[str, Any]:
        given = [name for name in ("user", "ai_level") if attrs.get(name)]
        if attrs.get("open"):
            given.append("open")
        if len(given) != 1:
            raise serializers.ValidationError("A seat needs exactly one of: user, ai_level, open.")
        return {given[0]: attrs[given[0]]}


class SeatListSerializer(serializers.ListSerializer):
    """The seats, refused by their number before a single one is validated or looked up."""

    def to_internal_value(self, data: Any) -> list[dict[str, Any]]:
        if isinstance(data, list):
            most = max((k.rules.max_seats for k in registry.all_kinds()), default=1) - 1
            if len(data) > most:
                raise _bad_seats(f"No game here has more than {most + 1} players.")
        return super().to_internal_value(data)


class GameCreateSerializer(serializers.Serializer):
    """Start a game: its kind, options and the other seats (you take seat 0)."""

    kind = KindField(help_text="The game.")
    options = serializers.DictField(required=False, default=dict)
    seats = SeatListSerializer(
        child=SeatRequestSerializer(),
        help_text="The other seats in order (you take seat 0): a user, a computer or an open seat.",
    )
    record = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        max_length=10_000,
        help_text="Import: a game record (Circles: 'c5d6c3...') replayed into the new game, which "
        "goes on from there. Every other seat must be a computer.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Refuse too many seats for the kind, then turn the seats into `SeatSpec`s.

        The service checks the seats fully; the count is checked here too because it must come
        before the users are looked up.
        """
        game_kind = registry.get(attrs["kind"])
        players = 1 + len(attrs["seats"])
        if players > game_kind.rules.max_seats:
            raise _bad_seats(
                f"{game_kind.title} is played by at most {game_kind.rules.max_seats} players, "
                f"not {players}."
            )
        attrs["seats"] = self._seat_specs(attrs["seats"])
        return attrs

    @staticmethod
    def _seat_specs(seats: list[dict[str, Any]]) -> list[SeatSpec]:
        """The seats with their users found, case-insensitively, in one query."""
        wanted = {_username_key(seat["user"]) for seat in seats if "user" in seat}
        users = {}
        if wanted:
            found = (
                get_user_model()
                .objects.annotate(username_lower=Lower("username"))
                .filter(username_lower__in=wanted)
            )
            users = {user.username_lower: user for user in found}
        errors: list[dict[str, list[str]]] = []
        specs = []
        for seat in seats:
            if "user" in seat:
                user = users.get(_username_key(seat["user"]))
                if user is None:
                    message = f"No player is called {shorten(seat['user'])}."
                    errors.append({"user": [message]})
                    continue
                specs.append(SeatSpec(user=user))
            else:
                specs.append(SeatSpec(ai_level=seat.get("ai_level", "")))
            errors.append({})
        if any(errors):
            raise serializers.ValidationError({"seats": errors})
        return specs


def _username_key(username: str) -> str:
    """How a typed username is matched: in its stored (NFKC) form, ignoring case."""
    return normalize_username(username).lower()


class GameListQuerySerializer(serializers.Serializer):
    """The filters of `GET /games/`. Empty parameters are left out before validation."""

    kind = KindField(required=False, help_text="Only games of this kind.")
    status = serializers.ChoiceField(
        choices=GameStatus.choices,
        required=False,
        help_text="Only games in this state.",
        error_messages={"invalid_choice": "A status is one of: open, active, finished, aborted."},
    )
    my_turn = serializers.BooleanField(
        required=False, default=False, help_text="Only games waiting for my move."
    )


class OpenGamesQuerySerializer(serializers.Serializer):
    """The filters of `GET /games/open/`."""

    kind = KindField(required=False, help_text="Only games of this kind.")


class MoveRequestSerializer(serializers.Serializer):
    expected_version = serializers.IntegerField(
        min_value=0,
        max_value=2**31 - 1,
        help_text="The game's version you saw; a newer game answers 409.",
    )
    move = serializers.DictField(help_text="The move, in the game's own JSON (see each kind).")


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    user = serializers.CharField(allow_null=True)
    ai_level = serializers.CharField(allow_null=True)
    name = serializers.CharField()
    open = serializers.BooleanField()
    score = serializers.IntegerField(required=False)


class OutcomeSerializer(serializers.Serializer):
    scores = serializers.ListField(child=serializers.IntegerField())
    winners = serializers.ListField(child=serializers.IntegerField())
    reason = serializers.CharField()


class GameSummarySerializer(serializers.Serializer):
    """A game in a list: the envelope without `state` and `legal_moves`."""

    id = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.ChoiceField(choices=GameStatus.choices)
    version = serializers.IntegerField()
    options = serializers.DictField()
    seats = SeatSerializer(many=True)
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat to act, if any.")
    you = serializers.IntegerField(allow_null=True, help_text="Your seat; null for spectators.")
    outcome = OutcomeSerializer(allow_null=True)
    move_count = serializers.IntegerField()
    rematch_id = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class GameEnvelopeSerializer(GameSummarySerializer):
    """A game as you may see it: your seat's view of it, and your legal moves on your turn."""

    state = serializers.DictField(
        allow_null=True, help_text="The game as you may see it (the kind's own view)."
    )
    legal_moves = serializers.ListField(
        child=serializers.DictField(),
        help_text="Every legal move, only when it is your turn.",
    )


class MoveLogEntrySerializer(serializers.Serializer):
    """One entry of the move log; the kind's own public fields (and your private ones) follow."""

    number = serializers.IntegerField()
    seat = serializers.IntegerField()
    at = serializers.DateTimeField()
    imported = serializers.BooleanField(
        help_text="Replayed from an imported record: nobody made this move on this site."
    )


class RecordSerializer(serializers.Serializer):
    kind = KindField()
    record = serializers.CharField(
        allow_blank=True, help_text="The moves in the kind's notation (Circles: 'c5d6c3...')."
    )


# --- the kinds' own shapes ---------------------------------------------------------------------
#
# Each game app describes its JSON (moves, options, views, log entries) with serializers built on
# these bases and registers them on its `registry.GameKind`. They are checked documentation: the
# engine stays the authority, and the contract tests validate everything an engine writes against
# them.


class ShapeSerializer(serializers.Serializer):
    """A JSON object of exactly the declared fields: an undeclared key is an error."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in data if key not in self.fields)
            if unknown:
                raise serializers.ValidationError(
                    {key: ["Not a field of this shape."] for key in unknown}
                )
        return super().to_internal_value(data)


class OneOfSerializer(ShapeSerializer):
    """One of several shapes, told apart by the value of one field (`discriminator`).

    `variants` maps each value to the serializer of that shape (which declares the discriminator
    itself, usually as a `ConstField`). The schema is a `oneOf` with a discriminator.
    """

    discriminator: str = ""
    variants: dict[str, type[serializers.Serializer]] = {}

    def _variant(self, value: Any) -> type[serializers.Serializer] | None:
        return self.variants.get(value) if isinstance(value, str) else None

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError("A JSON object is expected.")
        variant = self._variant(data.get(self.discriminator))
        if variant is None:
            choices = ", ".join(self.variants)
            raise serializers.ValidationError({self.discriminator: [f"One of: {choices}."]})
        serializer = variant(data=data, context=self.context)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def to_representation(self, instance: Any) -> Any:
        variant = self._variant(instance.get(self.discriminator))
        if variant is None:
            return instance
        return variant(context=self.context).to_representation(instance)


class EnumField(serializers.ChoiceField):
    """A choice documented as its own named enum component, `enum_name` (e.g. `CirclesAiLevelEnum`),
    so that equal names never collide across components."""

    def __init__(self, choices: Any, *, enum_name: str = "", **kwargs: Any) -> None:
        self.enum_name = enum_name
        super().__init__(choices, **kwargs)


class ConstField(EnumField):
    """A field that always holds `value` (the `kind` of a per-kind shape, a move's `action`)."""

    def __init__(self, value: str, **kwargs: Any) -> None:
        self.value = value
        super().__init__([value], **kwargs)


# --- the typed schema --------------------------------------------------------------------------
#
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
    """The move request, its `move` being `oneOf` the move shapes of every registered kind."""

    target_class = MoveRequestSerializer

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


class JsonBooleanField(serializers.BooleanField):
    """`true` or `false` only, as the engines read them (DRF's own also takes "yes", 1, ...)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class JsonIntegerField(serializers.IntegerField):
    """A JSON integer only, as the engines read them (DRF's own also takes "7" and 7.0)."""

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return super().to_internal_value(data)
