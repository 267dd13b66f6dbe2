"""The API's one error shape, for the schema (`greycircle.api.errors` builds the errors)."""

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer):
    """`{"code": ..., "detail": ..., "fields": {...}?}`; some codes add members of their own."""

    code = serializers.CharField(help_text="What went wrong, for programs: see each response.")
    detail = serializers.CharField(help_text="What went wrong, for people.")
    current_version = serializers.IntegerField(
        required=False, help_text="With stale_version: the game's version now."
    )
    retry_after = serializers.IntegerField(
        required=False,
        help_text="With poke_too_soon: seconds until the next reminder is allowed; with "
        "time_not_up: seconds until the win can be claimed.",
    )
    deadline = serializers.DateTimeField(
        required=False, help_text="With time_not_up: when the player to move runs out of time."
    )


# "fields" would shadow Serializer.fields, so the member is declared after the class.
ErrorSerializer._declared_fields["fields"] = serializers.DictField(
    required=False, help_text="Per-field messages for invalid input."
)
