from datetime import timedelta

from django.apps import AppConfig
from django.conf import settings


def _sweep_period() -> timedelta:
    return timedelta(seconds=float(settings.LOBBY_SWEEP_SECONDS))


class LobbyConfig(AppConfig):
    name = "greycircle.lobby"
    label = "lobby"
    verbose_name = "Lobby"

    def ready(self) -> None:
        from greycircle.api.schema import components_publish
        from greycircle.lobby import frames, services
        from greycircle.runtime.sweeps import sweep_register

        # Each second every worker widens the waiting seeks' windows and pairs who now fit, and
        # lets go of the live seeks whose seekers left (services.lobby_sweep).
        sweep_register(name="lobby pairing", run=services.lobby_sweep, every=_sweep_period)
        components_publish(*frames.PUBLISHED)  # `ws/lobby/`'s frames, in `/api/schema/`
