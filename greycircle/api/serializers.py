"""The API's one error shape, for the schema (`greycircle.api.errors` builds the errors)."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# The component `fields` refers to; `greycircle.api.schema.declare_common_errors` adds it.
FIELD_ERRORS = "FieldErrors"
FIELD_ERRORS_SCHEMA = {
    "type": "object",
    "description": "Messages per field of the request, keyed by the field's name "
    "(`non_field_errors` for the object as a whole). A field's value is the list of its "
    "messages; a nested object, list or map has the same again for its members instead: an "
    "object keyed by member name, index or key, or for a list of objects one entry per item "
    '(`{}` for the valid ones), e.g. `{"seats": [{"user": ["No player is called nobody."]}]}`.',
    "additionalProperties": {
        "oneOf": [
            {
                "type": "array",
                "items": {
                    "oneOf": [
                        {"type": "string"},
                        {"$ref": f"#/components/schemas/{FIELD_ERRORS}"},
                    ]
                },
            },
            {"$ref": f"#/components/schemas/{FIELD_ERRORS}"},
        ]
    },
}


@extend_schema_field({"$ref": f"#/components/schemas/{FIELD_ERRORS}"})
class FieldErrorsField(serializers.DictField):
    """DRF's validation messages per field, as `FieldErrors` describes them."""


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
ErrorSerializer._declared_fields["fields"] = FieldErrorsField(
    required=False, help_text="With invalid: the messages per field of the request."
)
