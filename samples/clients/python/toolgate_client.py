#!/usr/bin/env python3
"""A client of `toolgate serve`, with nothing but Python's standard library.

For an agent runtime written in Python that runs its own tools and wants
every call decided by the same guard library as everything else on the
machine: ask before running a tool (begin), report what it returned
(complete).  The protocol is one JSON object per line over a Unix socket;
docs/design.md section 16 describes it.

    from toolgate_client import Client, Denied
    gate = Client()                       # $TOOLGATE_SOCKET or the default path
    decision = gate.begin("Bash", {"command": "ls"}, session_id="s1")
    if decision["verdict"] != "allow":
        ...                               # deny: decision["reason"]; ask: ask your user
    output = run_my_tool(decision["arguments"])   # the arguments after rewrites
    outcome = gate.complete(decision["call_id"], text_result(output))
    # outcome["result"] is what the model should see; outcome["outcome"] is
    # accepted, replaced or blocked.

Fail closed: every error here raises; an agent that catches it must not
run the tool.
"""

import itertools
import json
import os
import socket

__all__ = ["Client", "ProtocolError", "text_result", "default_socket_path"]


class ProtocolError(Exception):
    """The daemon could not be reached or answered with an error."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def default_socket_path():
    """Where `toolgate hook` looks: $TOOLGATE_SOCKET, the user's socket, the system one."""
    env = os.environ.get("TOOLGATE_SOCKET")
    if env:
        return env
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        user = os.path.join(xdg, "toolgate", "toolgate.sock")
        if os.path.exists(user):
            return user
    return "/run/toolgate/toolgate.sock"


def text_result(text, is_error=False):
    """A tool's output in toolgate's result shape (an MCP-style content array)."""
    result = {"isError": bool(is_error), "content": [{"type": "text", "text": str(text)}]}
    if is_error:
        result["error"] = {"code": "tool_error", "message": str(text)}
    return result


class Client:
    """One connection to the daemon; requests are answered in order."""

    def __init__(self, path=None, timeout=5.0):
        self._path = path or default_socket_path()
        self._ids = itertools.count(1)
        try:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(timeout)
            self._sock.connect(self._path)
        except OSError as e:
            raise ProtocolError("unreachable", f"cannot connect to {self._path}: {e}; "
                                "is `toolgate serve` running?") from e
        self._reader = self._sock.makefile("rb")

    def close(self):
        self._reader.close()
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def request(self, op, **fields):
        """Sends one request and returns the answer (a dict with "ok": true)."""
        req = {"id": next(self._ids), "op": op, **fields}
        try:
            self._sock.sendall(json.dumps(req, ensure_ascii=False).encode() + b"\n")
            line = self._reader.readline()
        except OSError as e:
            raise ProtocolError("unreachable", f"the daemon did not answer: {e}") from e
        if not line:
            raise ProtocolError("unreachable", "the daemon closed the connection")
        answer = json.loads(line)
        if not answer.get("ok"):
            err = answer.get("error") or {}
            raise ProtocolError(err.get("code", "bad_answer"), err.get("message", repr(answer)))
        return answer

    def ping(self):
        return self.request("ping")

    def begin(self, tool, arguments, *, call_id=None, session_id=None, client=None,
              agent_id=None, caller_approves=True):
        """Decides a call: verdict allow (run it with answer["arguments"]), ask, or deny."""
        call = {"tool": tool, "arguments": arguments}
        for key, value in (("call_id", call_id), ("session_id", session_id),
                           ("client", client), ("agent_id", agent_id)):
            if value is not None:
                call[key] = value
        return self.request("begin", call=call, caller_approves=caller_approves)

    def complete(self, call_id, result):
        """Reports what the tool returned; the answer's "result" is what the model sees."""
        return self.request("complete", call_id=call_id, result=result)
