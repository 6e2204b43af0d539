"""A chat-completions endpoint on a local port, for the HTTP clients of the LLM judge and extractor."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeChatLLM:
    """Answers each POST with the next of `script` while it lasts, then with `reply` (a str is the message content
    as is, anything else is sent as JSON); `status` other than 200 answers with that error status, after `delay`
    seconds. Every request is recorded (`path`, `body`, `auth`)."""

    def __init__(self, script: list[str] | None = None) -> None:
        self.script = list(script or [])
        self.reply: Any = {"entailed": True, "reason": "same meaning"}
        self.status, self.delay, self.requests = 200, 0.0, list[dict[str, Any]]()
        llm = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                llm.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                if llm.delay:
                    threading.Event().wait(llm.delay)
                reply = llm.script.pop(0) if llm.script else llm.reply
                content = reply if isinstance(reply, str) else json.dumps(reply)
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(llm.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True  # a handler still sleeping for the slow case must not hold the shutdown
        self.httpd.handle_error = lambda request, address: None  # type: ignore[method-assign]  # client gave up
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@contextmanager
def serving(llm: FakeChatLLM) -> Iterator[FakeChatLLM]:
    """Serve `llm` on its port for the duration of the block."""
    thread = threading.Thread(target=llm.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield llm
    finally:
        llm.httpd.shutdown()
        llm.httpd.server_close()
        thread.join()
