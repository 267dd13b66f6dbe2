"""Players: the flows that span an account and the game platform, above both.

accounts/ knows the User, their settings, friends and blocks; the platform (greycircle.games,
.notifications, .ratings, .moderation) knows games, the inbox and ratings. What needs both lives
here: a guest's first game and their removal when idle, deleting an account (its games settled,
its inbox and ratings erased), downloading my data, the friends page (which reads its
notifications), and the user's admin page (their games and moderation log). This package may
import accounts and the platform; neither imports it (docs/architecture.md, "Layers").
"""
