from typing import Any

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "greycircle.games"
    label = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from accounts.signals import user_blocked
        from greycircle.games import (
            changes,
            deadlines,
            flags,
            schema,  # noqa: F401  (registers the schema extensions)
            sweeps,
            tasks,
            worker,
        )
        from greycircle.runtime.sweeps import sweep_register
        from greycircle.runtime.timers import timer_register
        from greycircle.runtime.worker import worker_policy_register

        worker_policy_register(worker.POLICY)
        changes.computer_to_move.connect(
            tasks.computer_to_move_received, dispatch_uid="games.ai_turn_enqueue"
        )
        for name, run in (
            ("stalled computer turns", sweeps.stalled_turns_recover),
            ("expired invitations", sweeps.invitations_expire),
            ("move deadlines", sweeps.deadlines_check),
        ):
            sweep_register(name=name, run=run, every=sweeps.sweep_period)
        # The others may claim the win against a player gone from a live game: a sweep, whose
        # thread is not the clocks' loop's (a flag never waits behind it).
        sweep_register(
            name="abandoned live games",
            run=deadlines.abandonments_check,
            every=deadlines.abandonments_period,
        )
        # Live games' clocks: each flag falls as it comes due, in every worker (flags.py).
        timer_register(name="clock flags", next_due=flags.flag_next_at, run=flags.flags_fall)
        user_blocked.connect(_part_across_block, dispatch_uid="games.seats_part_across_block")


def _part_across_block(sender: Any, *, blocker: Any, blocked: Any, **kwargs: Any) -> None:
    from greycircle.games.invitations import seats_part_across_block

    seats_part_across_block(blocker=blocker, blocked=blocked)
