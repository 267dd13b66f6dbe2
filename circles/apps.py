from django.apps import AppConfig


class CirclesConfig(AppConfig):
    name = "circles"
    verbose_name = "Circles"

    def ready(self) -> None:
        from circles import serializers, services
        from circles.ai import LEVELS, choose_move
        from circles.rules import RULES
        from circles.rules_page import rules_context
        from greycircle.games import registry
        from greycircle.games.clocks import TimeControl

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
                rules_template="circles/rules.html",
                rules_context=rules_context,
                outcome_reasons={"more_discs": "on discs", "tie": ""},
                # Everything is on the board: a move undone reveals nothing.
                takebacks=True,
                clock_presets=tuple(
                    TimeControl(minutes, increment)
                    for minutes, increment in ((1, 0), (3, 2), (5, 0), (5, 3), (10, 5), (15, 10))
                ),
                analysis=registry.GameAnalysis(
                    get=services.analysis_get,
                    request=services.analysis_request,
                    serializer=serializers.CirclesAnalysisSerializer,
                ),
            )
        )
