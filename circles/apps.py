from django.apps import AppConfig


class CirclesConfig(AppConfig):
    name = "circles"
    verbose_name = "Circles"

    def ready(self) -> None:
        from circles import serializers
        from circles.ai import LEVELS, choose_move
        from circles.rules import RULES
        from greycircle.games import registry

        registry.register(
            registry.GameKind(
                rules=RULES,
                computer=choose_move,
                ai_levels=LEVELS,
                title="Circles",
                move_serializer=serializers.CirclesMoveSerializer,
                options_serializer=serializers.CirclesOptionsSerializer,
                state_serializer=serializers.CirclesStateSerializer,
                log_entry_serializer=serializers.CirclesMoveLogEntrySerializer,
            )
        )
