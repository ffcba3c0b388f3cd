"""A gateway double in front of the service: it forwards each request, and for the next requests
may answer with its own 502 page instead (before forwarding: the service never saw it; after:
the service acted, and the client cannot know), or first let something else happen at the service
while the request is on its way (a callable, run before forwarding)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Literal, Optional, Union

import httpx

# None: this request passes untouched.
Fault = Optional[Union[Literal["page_before", "page_after"], Callable[[], None]]]
RELAYED = ("content-type", "etag", "preference-applied", "location", "retry-after", "x-request-id")


class Gateway:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.faults: list[Fault] = []
        # What reached the service: method, path, headers (lower-case names) and body.
        self.forwarded: list[tuple[str, str, dict[str, str], bytes]] = []
        self.received = 0
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def handle_any(self) -> None:
                gateway.received += 1
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                fault = gateway.faults.pop(0) if gateway.faults else None
                if fault == "page_before":
                    return self.page()
                if callable(fault):
                    fault()
                headers = {name: value for name, value in self.headers.items() if name.lower() not in ("host", "content-length", "connection")}
                gateway.forwarded.append((self.command, self.path, {name.lower(): value for name, value in headers.items()}, body))
                answer = httpx.request(self.command, gateway.upstream + self.path, headers=headers, content=body, timeout=70)
                if fault == "page_after":
                    return self.page()
                self.send_response(answer.status_code)
                for name in RELAYED:
                    if name in answer.headers:
                        self.send_header(name, answer.headers[name])
                self.send_header("content-length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            def page(self) -> None:
                page = b"<html><body>502 Bad Gateway</body></html>"
                self.send_response(502)
                self.send_header("content-type", "text/html")
                self.send_header("content-length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            do_GET = do_POST = do_PATCH = do_PUT = handle_any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
