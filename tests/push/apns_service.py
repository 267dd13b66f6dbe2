"""A local stand-in for Apple's push service (the APNs provider API), speaking HTTP/2 only (h2,
with prior knowledge over plain TCP), as APNs does over TLS.

`POST /3/device/<token>` is taken only with a provider token signed (ES256) by the team's key,
naming its key id and team; each push is recorded with its headers and JSON body, then answered
200, or what a test asks of one device token (410, 400 BadDeviceToken, 503, ...).
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
import uuid
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any

import h2.config
import h2.connection
import h2.events
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class ApnsPush:
    token: str
    headers: dict[str, str]
    body: dict[str, Any]


class ApnsService:
    TEAM_ID = "TEAM123456"
    KEY_ID = "KEY7654321"

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.pushes: list[ApnsPush] = []
        self.refused: list[str] = []
        self.answers: dict[str, deque[tuple[int, str | None]]] = defaultdict(deque)
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> ApnsService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        # Closing a listening socket does not wake its accept(): a connection does.
        socket.create_connection(self.listener.getsockname()).close()
        self.thread.join()
        self.listener.close()

    def key_pem(self) -> str:
        """The team's key as Apple's `.p8` file holds it."""
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()

    def answer(self, token: str, status: int, reason: str | None = None) -> None:
        self.answers[token].append((status, reason))

    def pushes_to(self, token: str) -> list[ApnsPush]:
        return [push for push in self.pushes if push.token == token]

    # --- the server ---------------------------------------------------------------------------

    def _serve(self) -> None:
        while True:
            connection, _ = self.listener.accept()
            if self.stopping.is_set():
                connection.close()
                return
            threading.Thread(target=self._connection, args=(connection,), daemon=True).start()

    def _connection(self, sock: socket.socket) -> None:
        h2conn = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        )
        h2conn.initiate_connection()
        sock.sendall(h2conn.data_to_send())
        streams: dict[int, tuple[dict[str, str], bytearray]] = {}
        with sock:
            while True:
                try:
                    data = sock.recv(65535)
                except OSError:
                    return
                if not data:
                    return
                for event in h2conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        streams[event.stream_id] = (dict(event.headers), bytearray())
                    elif isinstance(event, h2.events.DataReceived):
                        streams[event.stream_id][1].extend(event.data)
                        h2conn.acknowledge_received_data(
                            event.flow_controlled_length, event.stream_id
                        )
                    elif isinstance(event, h2.events.StreamEnded):
                        headers, body = streams.pop(event.stream_id)
                        status, answer = self._receive(headers, bytes(body))
                        payload = json.dumps(answer).encode() if answer else b""
                        h2conn.send_headers(
                            event.stream_id,
                            [
                                (":status", str(status)),
                                ("apns-id", str(uuid.uuid4())),
                                ("content-length", str(len(payload))),
                            ],
                            end_stream=not payload,
                        )
                        if payload:
                            h2conn.send_data(event.stream_id, payload, end_stream=True)
                    elif isinstance(event, h2.events.ConnectionTerminated):
                        sock.sendall(h2conn.data_to_send())
                        return
                sock.sendall(h2conn.data_to_send())

    def _receive(self, headers: dict[str, str], body: bytes) -> tuple[int, dict | None]:
        with self.lock:
            if headers.get(":method") != "POST" or not headers[":path"].startswith("/3/device/"):
                return 404, {"reason": "BadPath"}
            try:
                self._check_provider_token(headers.get("authorization", ""))
            except Exception as error:
                self.refused.append(f"{type(error).__name__}: {error}")
                return 403, {"reason": "InvalidProviderToken"}
            token = headers[":path"].removeprefix("/3/device/")
            self.pushes.append(ApnsPush(token=token, headers=headers, body=json.loads(body)))
            queued = self.answers[token]
            status, reason = queued.popleft() if queued else (200, None)
            return status, ({"reason": reason} if reason else None)

    def _check_provider_token(self, authorization: str) -> None:
        scheme, _, jwt = authorization.partition(" ")
        assert scheme == "bearer", "not a bearer token"
        header, claims, signature = jwt.split(".")
        assert json.loads(unb64url(header)) == {"alg": "ES256", "kid": self.KEY_ID}
        raw = unb64url(signature)
        self.key.public_key().verify(
            encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
            f"{header}.{claims}".encode(),
            ec.ECDSA(hashes.SHA256()),
        )
        claims_json = json.loads(unb64url(claims))
        assert claims_json["iss"] == self.TEAM_ID
        assert abs(claims_json["iat"] - time.time()) < 3600
