"""`/api/v1/me/`: the signed-in user and their settings."""

from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.serializers import MeSerializer
from accounts.services import user_settings_update


class MeView(GenericAPIView):
    serializer_class = MeSerializer

    @extend_schema(summary="Me and my settings")
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)

    @extend_schema(summary="Change my settings")
    def patch(self, request: Request) -> Response:
        serializer = MeSerializer(request.user, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        user = user_settings_update(user=request.user, changes=serializer.validated_data)
        return Response(MeSerializer(user).data)
