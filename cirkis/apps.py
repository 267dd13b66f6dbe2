from django.apps import AppConfig


class CirKisConfig(AppConfig):
    name = "cirkis"
    verbose_name = "CirKis"

    def ready(self) -> None:
        from cirkis import serializers
        from cirkis.ai import LEVELS, choose_move
        from cirkis.client import client_data
        from cirkis.rules import RULES
        from cirkis.rules_page import rules_context
        from greycircle.games import registry

        registry.register(
            registry.GameKind(
                rules=RULES,
                computer=choose_move,
                ai_levels=LEVELS,
                title="CirKis",
                client_data=client_data,
                move_serializer=serializers.CirKisMoveSerializer,
                options_serializer=serializers.CirKisOptionsSerializer,
                state_serializer=serializers.CirKisStateSerializer,
                log_entry_serializer=serializers.CirKisMoveLogEntrySerializer,
                rules_template="cirkis/rules.html",
                rules_context=rules_context,
                outcome_reasons={
                    "target": "by reaching the target",
                    "went_out": "by going out",
                    "blocked": "when nobody could play",
                },
            )
        )
