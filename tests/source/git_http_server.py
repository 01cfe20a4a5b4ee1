"""A git remote over HTTP with basic auth: `git http-backend` (git's own smart-HTTP CGI) behind a
small threaded HTTP server on loopback, as a forge's HTTPS endpoint would be minus TLS.

Every request must carry the user and token given (else 401 with a Basic challenge, so git asks
its credential helper); pushes are allowed for that user (REMOTE_USER is set for http-backend).
"""

from __future__ import annotations

import base64
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

BACKEND_SECONDS = 120.0


def _backend() -> str:
    exec_path = subprocess.run(
        ["git", "--exec-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return str(Path(exec_path) / "git-http-backend")


class GitHttpServer:
    """Serves the bare repositories under `root` at http://127.0.0.1:PORT/NAME.git."""

    def __init__(self, root: Path, user: str, token: str) -> None:
        self.root = root
        self.expected = "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode("ascii")
        self.refused = 0  # requests answered 401
        self.backend = _backend()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"

    def __enter__(self) -> GitHttpServer:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        served = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _serve(self) -> None:
                if self.headers.get("Authorization") != served.expected:
                    served.refused += 1
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="git"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, headers, output = served.run_backend(self, body)
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(output)))
                self.end_headers()
                self.wfile.write(output)

        return Handler

    def run_backend(
        self, request: BaseHTTPRequestHandler, body: bytes
    ) -> tuple[int, list[tuple[str, str]], bytes]:
        """Run git-http-backend as a CGI for `request`; (status, headers, body)."""
        split = urlsplit(request.path)
        env = {
            **{key: value for key, value in os.environ.items() if not key.startswith("GIT_")},
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": request.command,
            "PATH_INFO": split.path,
            "QUERY_STRING": split.query,
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": "reconciler",
            "REMOTE_ADDR": "127.0.0.1",
        }
        if request.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = request.headers["Content-Encoding"]
        if request.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = request.headers["Git-Protocol"]
        done = subprocess.run(
            [self.backend], input=body, env=env, capture_output=True, timeout=BACKEND_SECONDS, check=False
        )
        head, _, output = done.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, output = done.stdout.partition(b"\n\n")
        status = 200
        headers = []
        for raw in head.decode("latin-1").splitlines():
            name, _, value = raw.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name.strip(), value.strip()))
        return status, headers, output
