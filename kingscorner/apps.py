from django.apps import AppConfig


class KingsCornerConfig(AppConfig):
    name = "kingscorner"
    verbose_name = "King's Corner"

    def ready(self) -> None:
        from greycircle.games import registry
        from kingscorner import serializers
        from kingscorner.ai import LEVELS, choose_move
        from kingscorner.rules import RULES
        from kingscorner.rules_page import rules_context

        registry.register(
            registry.GameKind(
                rules=RULES,
                computer=choose_move,
                ai_levels=LEVELS,
                title="King's Corner",
                # With three or more players, an absent player's seat goes to the computer.
                takeover_level="normal",
                move_serializer=serializers.KingsCornerMoveSerializer,
                options_serializer=serializers.KingsCornerOptionsSerializer,
                state_serializer=serializers.KingsCornerStateSerializer,
                log_entry_serializer=serializers.KingsCornerMoveLogEntrySerializer,
                rules_template="kingscorner/rules.html",
                rules_context=rules_context,
                outcome_reasons={"went_out": "by going out", "stalemate": "at a stalemate"},
            )
        )
