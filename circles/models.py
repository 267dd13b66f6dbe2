"""Circles games: a proxy of the platform's `Game` holding only games of kind ``circles``
(see greycircle.games.proxies), and the engine's analyses of finished games.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from circles.rules import RULES
from greycircle.games.models import Game
from greycircle.games.proxies import KindGameManager, KindGameMixin


class CirclesGame(KindGameMixin, Game):
    rules = RULES

    objects = KindGameManager()

    class Meta:
        proxy = True
        verbose_name = "Circles game"
        verbose_name_plural = "Circles games"


class AnalysisStatus(models.TextChoices):
    PENDING = "pending", "Analysing"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class CirclesAnalysis(models.Model):
    """The hard engine's analysis of a finished Circles game (`circles.analysis`), computed once
    by a task (`circles.tasks.analysis_run`) and kept: `positions` grows as the task works through
    the game, a few positions per run, and is complete when `status` is ``ready``. `requested_by`
    and `requested_at` count against that player's limits (`circles.services`)."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="circles_analysis")
    status = models.CharField(
        max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.PENDING
    )
    # One entry per move of the game so far analysed (see circles.analysis.position_analyse).
    positions = models.JSONField(default=list, blank=True)
    total = models.PositiveIntegerField(help_text="Moves to analyse: the game's moves.")
    seconds = models.FloatField(default=0, help_text="Time spent analysing, in seconds.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Who asked for it (last), if their account still exists.",
    )
    requested_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "Circles analysis"
        verbose_name_plural = "Circles analyses"
        # A player's analyses in progress and of the last day (circles.services' limits).
        indexes = [models.Index(fields=["requested_by", "requested_at"], name="analysis_requester")]

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.status})"
