"""A partner's server on this machine for tests of calls to partners: it records every request it
gets and answers from a script (status, headers, a delay), over HTTP or TLS."""

from __future__ import annotations

import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    method: str
    path: str
    headers: dict
    body: bytes


@dataclass
class Answer:
    status: int = 200
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    delay_s: float = 0.0


class PartnerServer:
    """`with PartnerServer() as server:` listens on 127.0.0.1 at a free port until the block ends.
    `answers` are used in order, then 200 for every further request."""

    def __init__(self, *answers: Answer | int, tls: ssl.SSLContext | None = None) -> None:
        self.answers = [a if isinstance(a, Answer) else Answer(a) for a in answers]
        self.received: list[Received] = []
        self.server_names: list[str | None] = []  # the TLS SNI of each handshake
        self.tls = tls

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def url(self, path: str = "/", host: str = "127.0.0.1") -> str:
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}{path}"

    def __enter__(self) -> PartnerServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                owner.received.append(Received(self.command, self.path, dict(self.headers), body))
                answer = owner.answers.pop(0) if owner.answers else Answer()
                time.sleep(answer.delay_s)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            do_GET = do_POST = do_PUT = _answer

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        if self.tls is not None:
            self.tls.sni_callback = lambda sock, name, context: self.server_names.append(name)
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
