"""`manage.py perft <kind> --depth N`: count a game's move sequences from its start, and time it.

Perft ("performance test") checks a rules engine's move generation against known counts and
measures its speed. The kind's rules object must offer `perft(state, depth) -> int`. Wall-clock
and CPU time are both shown: on a busy machine the CPU figure is the engine's own speed.
"""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from greycircle.games import registry


class Command(BaseCommand):
    help = (
        "Print the number of move sequences (perft) of a game kind from its start for each depth "
        "1..N, with the time taken and leaves per second (wall clock and CPU)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("kind", help="The game kind, e.g. circles.")
        parser.add_argument("--depth", type=int, default=6, help="The deepest depth (default 6).")

    def handle(self, *args: Any, kind: str, depth: int, **options: Any) -> None:
        try:
            game_kind = registry.get(kind)
        except registry.UnknownKind:
            known = ", ".join(k.kind for k in registry.all_kinds()) or "none"
            raise CommandError(f"There is no game kind {kind!r} (known: {known}).") from None
        rules = game_kind.rules
        perft = getattr(rules, "perft", None)
        if not callable(perft):
            raise CommandError(f"The {game_kind.title} rules engine has no perft(state, depth).")
        if depth < 1:
            raise CommandError("--depth must be at least 1.")
        start = rules.new_game(rules.min_seats, seed=0, options=rules.validate_options({}))
        self.stdout.write(
            f"{'depth':>5}  {'leaves':>13}  {'seconds':>9}  {'leaves/s':>12}"
            f"  {'cpu s':>8}  {'leaves/cpu s':>12}"
        )
        for ply in range(1, depth + 1):
            began, began_cpu = time.perf_counter(), time.process_time()
            leaves = perft(start, ply)
            elapsed = time.perf_counter() - began
            cpu = time.process_time() - began_cpu
            self.stdout.write(
                f"{ply:>5}  {leaves:>13,}  {elapsed:>9.3f}  {_rate(leaves, elapsed):>12}"
                f"  {cpu:>8.3f}  {_rate(leaves, cpu):>12}"
            )


def _rate(leaves: int, seconds: float) -> str:
    return f"{leaves / seconds:,.0f}" if seconds > 0 else "-"
