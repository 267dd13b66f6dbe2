import logging
from datetime import timedelta

from django.apps import AppConfig
from django.conf import settings

logger = logging.getLogger(__name__)


class PlayersConfig(AppConfig):
    name = "greycircle.players"
    label = "players"
    verbose_name = "Players"

    def ready(self) -> None:
        from greycircle.runtime.sweeps import sweep_register

        sweep_register(name="idle guests", run=_idle_guests_remove, every=_guests_sweep_period)


def _guests_sweep_period() -> timedelta:
    # As often as the games' sweeps, the pace this one has always had.
    return timedelta(seconds=float(settings.GAMES_AI_STALL_SECONDS) / 2)


def _idle_guests_remove() -> None:
    # Imported at call time: apps.py is imported before the models load, and guests.py needs them.
    from greycircle.players.guests import guests_remove_idle

    if removed := guests_remove_idle():
        logger.info("removed %d idle guest accounts", removed)
