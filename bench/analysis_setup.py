"""Finished Circles games to analyse, for bench/analysis_load.py (run under Django; prints JSON).

    DATABASE_URL=... REDIS_URL=... .venv/bin/python bench/analysis_setup.py --analysers 36 \\
        --games 1 --prefix bench-analysis

Creates the users `{prefix}-a{i}` once and, for each, `--games` new finished Circles games
against the easy computer, imported from the records of random games (60 moves, or nearly); and
the user `{prefix}-x`, seated in none of them. Each run removes what earlier runs left: the
analyses of those users' games and every analysis run still queued or running, so that the task
workers start from an empty background queue. Prints `{"games": [{"id", "owner", "token"}],
"outsider": {"user", "token"}}` (session tokens as bench/load_setup.py makes them).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys


def random_record(rng: random.Random) -> str:
    from circles.rules import RULES

    state = RULES.new_game(2, seed=0, options={})
    while RULES.to_move(state) is not None:
        state = RULES.play(state, rng.choice(RULES.legal_moves(state)))
    return RULES.record(state)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix", default="bench-analysis")
    parser.add_argument("--analysers", type=int, default=36)
    parser.add_argument("--games", type=int, default=1, help="finished games per analyser")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "greycircle.settings")
    import django

    django.setup()
    from django_tasks_db.models import DBTaskResult

    from accounts.models import User
    from bench.load_setup import session_token_for
    from circles.models import CirclesAnalysis
    from greycircle.games import services

    names = [f"{args.prefix}-a{i}" for i in range(args.analysers)] + [f"{args.prefix}-x"]
    users = []
    for name in names:
        user, _ = User.objects.get_or_create(
            username=name, defaults={"email": f"{name}@example.com", "email_game_over": False}
        )
        users.append(user)
    *analysers, outsider = users

    DBTaskResult.objects.filter(
        task_path="circles.tasks.analysis_run", status__in=["READY", "RUNNING"]
    ).delete()
    CirclesAnalysis.objects.filter(game__seats__user__in=users).delete()

    rng = random.Random(args.seed)
    games = []
    for user in analysers:
        token = session_token_for(user)
        for _ in range(args.games):
            game = services.game_create(
                creator=user,
                kind="circles",
                opponents=[services.SeatSpec(ai_level="easy")],
                record=random_record(rng),
            )
            assert game.status == "finished", game.status
            games.append({"id": game.pk, "owner": user.username, "token": token})
    json.dump(
        {
            "games": games,
            "outsider": {"user": outsider.username, "token": session_token_for(outsider)},
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
