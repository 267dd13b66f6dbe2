"""A local stand-in for Firebase Cloud Messaging's HTTP v1 API and Google's OAuth token endpoint.

`POST /token` takes the site's JWT bearer assertion, checks its RS256 signature with the service
account's public key and its claims, and gives an access token; `POST
/v1/projects/<project>/messages:send` takes a message only with a token it gave, records it, and
answers 200 (or what a test asks of one device token: 404, 503, ...). An error is answered as
FCM's are: `{"error": {"code", "message", "status", "details": [FcmError's errorCode]}}`, with
the status and error code FCM documents for that HTTP status, and a message quoting the
request's token (FCM's messages may quote the request, which the site must not keep).
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.push.local_http import LocalHttpService

FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
# HTTP status -> (the API's status, FCM's error code), as FCM's documentation pairs them.
ERRORS = {
    400: ("INVALID_ARGUMENT", "INVALID_ARGUMENT"),
    401: ("UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR"),
    403: ("PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
    404: ("NOT_FOUND", "UNREGISTERED"),
    429: ("RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED"),
    500: ("INTERNAL", "INTERNAL"),
    503: ("UNAVAILABLE", "UNAVAILABLE"),
}


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class FcmService(LocalHttpService):
    PROJECT = "greycircle-test"

    def __init__(self) -> None:
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.client_email = f"push-{secrets.token_hex(4)}@{self.PROJECT}.iam.example"
        self.access_tokens: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.refused: list[str] = []
        self.answers: dict[str, deque[int]] = defaultdict(deque)
        super().__init__()

    def credentials(self) -> str:
        """The service account's JSON key, as Google's console gives it."""
        pem = self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        return json.dumps(
            {
                "type": "service_account",
                "project_id": self.PROJECT,
                "client_email": self.client_email,
                "private_key": pem,
                "token_uri": f"{self.origin}/token",
            }
        )

    def answer(self, token: str, *statuses: int) -> None:
        self.answers[token].extend(statuses)

    def messages_to(self, token: str) -> list[dict[str, Any]]:
        return [message for message in self.messages if message["token"] == token]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status, answer = service._receive(self.path, self.headers, body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def _receive(self, path: str, headers: Any, body: bytes) -> tuple[int, dict[str, Any]]:
        with self.lock:
            if path == "/token":
                return self._token(parse_qs(body.decode()))
            if path != f"/v1/projects/{self.PROJECT}/messages:send":
                return 404, {"error": {"status": "NOT_FOUND"}}
            bearer = headers.get("Authorization", "").removeprefix("Bearer ")
            if bearer not in self.access_tokens:
                self.refused.append("unknown access token")
                return 401, {"error": {"status": "UNAUTHENTICATED"}}
            message = json.loads(body)["message"]
            self.messages.append(message)
            queued = self.answers[message["token"]]
            status = queued.popleft() if queued else 200
            if status == 200:
                return 200, {"name": f"projects/{self.PROJECT}/messages/{len(self.messages)}"}
            api_status, code = ERRORS.get(status, ("UNKNOWN", "UNSPECIFIED_ERROR"))
            return status, {
                "error": {
                    "code": status,
                    "message": f"Message to {message['token']} not sent.",
                    "status": api_status,
                    "details": [{"@type": FCM_ERROR_TYPE, "errorCode": code}],
                }
            }

    def _token(self, form: dict[str, list[str]]) -> tuple[int, dict[str, Any]]:
        try:
            assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
            header, claims, signature = form["assertion"][0].split(".")
            assert json.loads(unb64url(header))["alg"] == "RS256"
            self.key.public_key().verify(
                unb64url(signature),
                f"{header}.{claims}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
            claims_json = json.loads(unb64url(claims))
            assert claims_json["iss"] == self.client_email
            assert claims_json["aud"] == f"{self.origin}/token"
            assert claims_json["scope"] == "https://www.googleapis.com/auth/firebase.messaging"
            assert claims_json["iat"] <= time.time() + 5 < claims_json["exp"]
        except Exception as error:
            self.refused.append(f"token: {type(error).__name__}: {error}")
            return 400, {"error": "invalid_grant"}
        token = secrets.token_urlsafe(16)
        self.access_tokens.append(token)
        return 200, {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}
