"""Staff's moderation log: who did what to which user or game, when, and why.

Every moderation action staff take in the admin (deactivating, reactivating, changing or deleting
an account, aborting a game) goes through `services` here and is recorded as a
`models.ModerationAction` in the same transaction. The log is written once and never edited.
This is platform code: it imports no game app (circles, kingscorner, cirkis).
"""
