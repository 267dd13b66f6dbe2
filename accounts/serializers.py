from rest_framework import serializers

from accounts.models import User


class MeSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "email", "date_joined", "show_helpers", *User.EMAIL_PREFERENCES]
        read_only_fields = ["id", "username", "email", "date_joined"]
