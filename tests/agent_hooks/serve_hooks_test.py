#!/usr/bin/env python3
"""End to end: `toolgate serve` with the agent-hooks sample policy, and
`toolgate hook AGENT` run as each agent runs it -- a fresh process per hook,
the agent's payload (tests/agent_hooks/fixtures/, built from each agent's
documentation) on stdin.  Also the stdlib-only Python client sample, fifty
hook processes at once, a reload in the middle of them, a daemon that is
down or never answers, malformed payloads, and a user the socket refuses.

usage: serve_hooks_test.py TOOLGATE MANIFEST FIXTURES CLIENT_DIR TOOLGATE_HOOK

The hooks run as `toolgate-hook AGENT` (what `install` writes); one test
checks `toolgate hook AGENT` answers the same, and `--no-daemon`.
"""

import json
import pathlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

TOOLGATE, MANIFEST, FIXTURES, CLIENT_DIR, TOOLGATE_HOOK, SLOW_SHUTDOWN_PLUGIN = sys.argv[1:7]
sys.path.insert(0, CLIENT_DIR)
import toolgate_client  # noqa: E402  (the sample under test)

AGENTS = ["claude-code", "codex", "gemini-cli", "cursor"]
DENY_MARKS = {("permissionDecision", "deny"), ("decision", "deny"), ("decision", "block"),
              ("permission", "deny")}


_runs = iter(range(1, 1 << 30))


def fixture(agent, name, run=None):
    """A fixture's payload; with `run`, its tool-use id made unique to that
    run (the daemon refuses a second begin of an id still pending, as an
    agent never reuses one), the same for the before and after hooks."""
    with open(os.path.join(FIXTURES, agent, name), "rb") as f:
        data = f.read()
    if run is None:
        return data
    payload = json.loads(data)
    if "tool_use_id" in payload:
        payload["tool_use_id"] = f"{payload['tool_use_id']}-{run}"
    return json.dumps(payload).encode()


def new_run():
    return next(_runs)


def marks(value):
    """Every (key, string value) pair anywhere in a JSON document."""
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str):
                yield (k, v)
            yield from marks(v)
    elif isinstance(value, list):
        for v in value:
            yield from marks(v)


class Hook:
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout.decode()
        self.err = proc.stderr.decode()
        try:
            self.json = json.loads(self.out) if self.out.strip() else {}
        except ValueError:
            self.json = None

    def blocked(self):
        return self.code == 2 or bool(DENY_MARKS & set(marks(self.json or {})))

    def text(self):
        return self.out + self.err


def run_hook(agent, payload, socket_path, *extra, timeout=30, user=None, program=TOOLGATE_HOOK):
    cmd = [program, agent, "--socket", socket_path, *extra]
    if os.path.basename(program) == "toolgate":
        cmd.insert(1, "hook")
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    return Hook(subprocess.run(cmd, input=payload, capture_output=True, timeout=timeout))


class Daemon:
    def __init__(self, folder, manifest):
        self.socket = os.path.join(folder, "run", "toolgate.sock")
        self.log = open(os.path.join(folder, "serve.log"), "w+")
        self.proc = subprocess.Popen(
            [TOOLGATE, "serve", manifest, "--socket", self.socket, "--no-probe"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while not os.path.exists(self.socket):
            if self.proc.poll() is not None or time.time() > deadline:
                self.log.seek(0)
                raise RuntimeError("toolgate serve did not start:\n" + self.log.read())
            time.sleep(0.02)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=20)
        self.log.close()
        return code


class ServeAndHooks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="tg-serve-")
        os.chmod(cls.dir, 0o755)
        cls.manifest = os.path.join(cls.dir, "agent-hooks.json")
        shutil.copy(MANIFEST, cls.manifest)
        cls.manifest_dir = os.path.dirname(os.path.abspath(MANIFEST))
        # Plugin paths in the sample are relative to the build tree's copy.
        with open(MANIFEST) as f:
            text = f.read().replace(
                "../../plugins/", os.path.join(cls.manifest_dir, "../../plugins/"))
        with open(cls.manifest, "w") as f:
            f.write(text)
        cls.daemon = Daemon(cls.dir, cls.manifest)

    @classmethod
    def tearDownClass(cls):
        code = cls.daemon.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)
        assert code == 0, f"toolgate serve exited {code} on SIGTERM"

    def test_socket_is_private(self):
        mode = os.stat(self.daemon.socket).st_mode & 0o777
        self.assertEqual(mode, 0o600)
        self.assertEqual(os.stat(os.path.dirname(self.daemon.socket)).st_mode & 0o777, 0o700)

    def test_each_agent_allows_a_harmless_call_and_blocks_rm_rf(self):
        for agent in AGENTS:
            with self.subTest(agent=agent):
                ok = run_hook(agent, fixture(agent, "pre_allow.json", new_run()),
                              self.daemon.socket)
                self.assertEqual(ok.code, 0, ok.text())
                self.assertFalse(ok.blocked(), ok.text())
                no = run_hook(agent, fixture(agent, "pre_deny.json"), self.daemon.socket)
                self.assertTrue(no.blocked(), no.text())
                self.assertIn("toolgate.guard-commands", no.text())
                # "denied by SOURCE: reason", the code not repeated after the source
                self.assertIn("denied by toolgate.guard-commands/", no.text())
                self.assertNotIn("(denied)", no.text())

    def test_each_agent_receives_the_rewritten_input_or_an_ask(self):
        for agent in AGENTS:
            with self.subTest(agent=agent):
                r = run_hook(agent, fixture(agent, "pre_rewrite.json", new_run()),
                             self.daemon.socket)
                payload = json.loads(fixture(agent, "pre_rewrite.json"))
                command = (payload.get("tool_input") or {}).get("command", "")
                if command == "npm install":
                    self.assertIn("npm ci", r.out, r.text())
                    self.assertFalse(r.blocked(), r.text())
                else:  # a force push: an ask, or a denial where the agent cannot ask
                    self.assertIn("force-pushing", r.text(), r.text())
                    if agent != "claude-code":
                        self.assertTrue(r.blocked(), r.text())
                    else:
                        self.assertEqual(r.json["hookSpecificOutput"]["permissionDecision"], "ask")

    def test_a_secret_in_a_tool_output_never_reaches_the_model_unmarked(self):
        for agent in AGENTS:
            with self.subTest(agent=agent):
                run = new_run()
                pre = run_hook(agent, fixture(agent, "pre_allow.json", run), self.daemon.socket)
                self.assertEqual(pre.code, 0, pre.text())
                r = run_hook(agent, fixture(agent, "post_secret.json", run), self.daemon.socket)
                self.assertNotIn("AKIAIOSFODNN7EXAMPLE", r.out, r.text())
                self.assertIn("REDACTED", r.text(), r.text())

    def test_subagent_calls_are_seen_and_refused_by_policy(self):
        # Codex's subagent fixture runs a shell command: the policy's
        # callers rule refuses it, while the main agent's call goes through.
        r = run_hook("codex", fixture("codex", "pre_subagent.json", new_run()), self.daemon.socket)
        self.assertTrue(r.blocked(), r.text())
        self.assertIn("subagents may not run shell commands", r.text())
        # Claude Code's subagent reads a file: not a shell call, allowed.
        r = run_hook("claude-code", fixture("claude-code", "pre_subagent.json", new_run()),
                     self.daemon.socket)
        self.assertFalse(r.blocked(), r.text())
        # The same harmless shell call, once from a Claude Code subagent.
        payload = json.loads(fixture("claude-code", "pre_allow.json", new_run()))
        payload.update(agent_id="agent-42", agent_type="Explore")
        r = run_hook("claude-code", json.dumps(payload).encode(), self.daemon.socket)
        self.assertTrue(r.blocked(), r.text())
        self.assertIn("subagents may not run shell commands", r.text())

    def test_toolgate_hook_answers_as_toolgate_hook_does_and_without_the_daemon(self):
        for agent in AGENTS:
            with self.subTest(agent=agent):
                payload = fixture(agent, "pre_deny.json", new_run())
                small = run_hook(agent, payload, self.daemon.socket)
                full = run_hook(agent, payload, self.daemon.socket, program=TOOLGATE)
                self.assertEqual((small.code, small.out), (full.code, full.out))
                alone = subprocess.run([TOOLGATE, "hook", agent, "--no-daemon", self.manifest],
                                       input=fixture(agent, "pre_deny.json", new_run()),
                                       capture_output=True, timeout=60)
                self.assertTrue(Hook(alone).blocked(), Hook(alone).text())
                self.assertIn(b"toolgate.guard-commands", alone.stdout + alone.stderr)
                ok = subprocess.run([TOOLGATE, "hook", agent, "--no-daemon", self.manifest],
                                    input=fixture(agent, "pre_allow.json", new_run()),
                                    capture_output=True, timeout=60)
                self.assertFalse(Hook(ok).blocked(), Hook(ok).text())

    def test_without_the_daemon_the_answer_does_not_wait_for_plugins_to_unload(self):
        # The answer is the hook's last act: a plugin whose shutdown hangs
        # must not keep the process alive past it -- an agent that kills a
        # slow hook, or reads its answer only at a clean exit, lets the call
        # through.
        manifest = os.path.join(self.dir, "slow-shutdown.json")
        with open(manifest, "w") as f:
            json.dump({"toolgate": 1, "plugins": [
                {"id": "test.slow-shutdown", "path": SLOW_SHUTDOWN_PLUGIN}]}, f)
        for agent in AGENTS:
            with self.subTest(agent=agent):
                start = time.monotonic()
                r = subprocess.run([TOOLGATE, "hook", agent, "--no-daemon", manifest],
                                   input=fixture(agent, "pre_allow.json", new_run()),
                                   capture_output=True, timeout=30)
                self.assertLess(time.monotonic() - start, 5, "the hook waited for the unload")
                self.assertTrue(Hook(r).blocked(), Hook(r).text())
                self.assertIn(b"slow-shutdown test plugin", r.stdout + r.stderr)

    def test_malformed_payloads_block_and_say_why(self):
        for agent in AGENTS:
            for payload in (b"", b"not json", b"[]", b'{"hook_event_name": "PreToolUse"}'):
                with self.subTest(agent=agent, payload=payload):
                    r = run_hook(agent, payload, self.daemon.socket)
                    self.assertTrue(r.blocked(), r.text())
                    self.assertIn("payload", r.err)

    def test_no_daemon_blocks_and_names_the_fix(self):
        missing = os.path.join(self.dir, "nobody-here.sock")
        for agent in AGENTS:
            with self.subTest(agent=agent):
                r = run_hook(agent, fixture(agent, "pre_allow.json"), missing)
                self.assertTrue(r.blocked(), r.text())
                self.assertIn("toolgate serve", r.err)

    def test_a_daemon_that_never_answers_blocks_within_the_bound(self):
        path = os.path.join(self.dir, "silent.sock")
        silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        silent.bind(path)
        silent.listen(8)
        try:
            start = time.monotonic()
            r = run_hook("claude-code", fixture("claude-code", "pre_allow.json"), path,
                         "--timeout-ms", "300")
            took = time.monotonic() - start
            self.assertTrue(r.blocked(), r.text())
            self.assertIn("did not answer", r.err)
            self.assertLess(took, 5.0)
        finally:
            silent.close()

    def test_a_hook_whose_stdin_never_closes_blocks_within_its_bound(self):
        start = time.monotonic()
        proc = subprocess.Popen([TOOLGATE_HOOK, "claude-code", "--socket", self.daemon.socket,
                                 "--timeout-ms", "300"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdin.write(b'{"hook_event_name": "PreToolUse"')  # and never more
        proc.stdin.flush()
        proc.wait(timeout=10)  # stdin still open: only the hook's own bound ends it
        took = time.monotonic() - start
        err = proc.stderr.read().decode()
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
        self.assertEqual(proc.returncode, 2, err)
        self.assertIn("no answer within", err)
        self.assertLess(took, 5.0)

    def test_after_the_tool_a_failure_replaces_the_output_where_the_agent_allows_it(self):
        # Claude Code: exit 2 after the tool only adds a message, so the
        # failure comes as the after-tool block, with the output replaced.
        missing = os.path.join(self.dir, "gone.sock")
        r = run_hook("claude-code", fixture("claude-code", "post_secret.json", new_run()), missing)
        self.assertEqual(r.code, 0, r.text())
        self.assertEqual(r.json["decision"], "block", r.text())
        self.assertNotIn("AKIAIOSFODNN7EXAMPLE", r.out)
        self.assertIn("updatedToolOutput", r.json["hookSpecificOutput"], r.text())

    def test_the_python_client_sample(self):
        with toolgate_client.Client(self.daemon.socket) as gate:
            self.assertEqual(gate.ping()["protocol"], 1)
            d = gate.begin("Bash", {"command": "ls"}, session_id="py", client="python")
            self.assertEqual(d["verdict"], "allow")
            out = gate.complete(d["call_id"], toolgate_client.text_result("a.txt"))
            self.assertEqual(out["outcome"], "accepted")
            self.assertEqual(gate.begin("Bash", {"command": "rm -rf /"})["verdict"], "deny")
            with self.assertRaises(toolgate_client.ProtocolError) as e:
                gate.complete("never-begun", toolgate_client.text_result("x"))
            self.assertEqual(e.exception.code, "unknown_call")

    def test_fifty_hooks_at_once_through_a_reload(self):
        results = [None] * 50
        payloads = [fixture(AGENTS[i % 4], "pre_deny.json" if i % 2 else "pre_allow.json",
                            new_run()) for i in range(50)]

        def one(i):
            results[i] = run_hook(AGENTS[i % 4], payloads[i], self.daemon.socket, timeout=60)

        with toolgate_client.Client(self.daemon.socket) as gate:
            generation = gate.ping()["generation"]
        threads = [threading.Thread(target=one, args=(i,)) for i in range(50)]
        for t in threads:
            t.start()
        # A reload in the middle: the same policy, rewritten in place.
        time.sleep(0.05)
        os.utime(self.manifest)
        with open(self.manifest, "a") as f:
            f.write("\n")
        for t in threads:
            t.join()
        for i, r in enumerate(results):
            self.assertIsNotNone(r, i)
            if i % 2:
                self.assertTrue(r.blocked(), f"{i}: {r.text()}")  # no guard went missing
            else:
                self.assertEqual(r.code, 0, f"{i}: {r.text()}")   # no answer lost
                self.assertFalse(r.blocked(), f"{i}: {r.text()}")
        # The reload did happen (a new generation serves).
        deadline = time.time() + 10
        while True:
            with toolgate_client.Client(self.daemon.socket) as gate:
                if gate.ping()["generation"] > generation:
                    break
            self.assertLess(time.time(), deadline, "the manifest change was never reloaded")
            time.sleep(0.05)

    def test_an_oversized_request_is_refused_and_the_daemon_serves_on(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(20)
        s.connect(self.daemon.socket)
        big = b'{"op":"ping","pad":"' + b"x" * (9 << 20) + b'"}\n'
        try:
            s.sendall(big)
        except OSError:
            pass  # the daemon may close before reading it all
        answer = s.makefile("rb").readline()
        s.close()
        self.assertIn(b"too_large", answer)
        with toolgate_client.Client(self.daemon.socket) as gate:
            self.assertEqual(gate.ping()["protocol"], 1)

    def test_install_keeps_other_hooks_and_uninstall_removes_only_its_own(self):
        project = os.path.join(self.dir, "project")
        settings = os.path.join(project, ".claude", "settings.json")
        os.makedirs(os.path.dirname(settings))
        theirs = {"model": "x", "hooks": {"PreToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "my-linter"}]}]}}
        with open(settings, "w") as f:
            json.dump(theirs, f)

        def tg(*args):
            return subprocess.run([TOOLGATE, "hook", *args, "--project", "--dir", project,
                                   "--command", "toolgate hook claude-code"],
                                  capture_output=True, text=True, timeout=30)

        r = tg("install", "claude-code")
        self.assertEqual(r.returncode, 0, r.stderr)
        installed = json.loads(pathlib.Path(settings).read_text())
        self.assertEqual(installed["model"], "x")
        commands = [h["command"] for g in installed["hooks"]["PreToolUse"] for h in g["hooks"]]
        self.assertIn("my-linter", commands)
        self.assertIn("toolgate hook claude-code", commands)
        self.assertTrue(os.path.exists(settings + ".toolgate-backup"))
        again = tg("install", "claude-code")
        self.assertIn("nothing changed", again.stdout)
        self.assertEqual(json.loads(pathlib.Path(settings).read_text()), installed)
        r = tg("uninstall", "claude-code")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(pathlib.Path(settings).read_text()), theirs)
        # A file that does not parse is refused and left as it was.
        with open(settings, "w") as f:
            f.write('{"hooks": ')
        r = tg("install", "claude-code")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not changed", r.stderr)
        self.assertEqual(pathlib.Path(settings).read_text(), '{"hooks": ')

    def test_a_hook_that_cannot_start_its_watchdog_blocks(self):
        # Without its watchdog nothing bounds the hook's wait: it must block
        # the call, not die with an exception (a crash is "go on" for most
        # agents).  A process limit of one makes the thread fail to start.
        if os.geteuid() != 0 or not shutil.which("runuser") or not shutil.which("prlimit"):
            self.skipTest("needs root, runuser and prlimit to run the client as nobody")
        program = os.path.join(self.dir, "toolgate-hook-nproc")
        shutil.copy(TOOLGATE_HOOK, program)
        os.chmod(program, 0o755)
        for agent in AGENTS:
            with self.subTest(agent=agent):
                r = subprocess.run(
                    ["runuser", "-u", "nobody", "--", "prlimit", "--nproc=1:1", program, agent,
                     "--socket", self.daemon.socket],
                    input=fixture(agent, "pre_allow.json", new_run()), capture_output=True,
                    timeout=30)
                self.assertEqual(r.returncode, 2, Hook(r).text())
                self.assertIn("watchdog", r.stderr.decode())

    def test_another_user_is_refused(self):
        if os.geteuid() != 0 or not shutil.which("runuser"):
            self.skipTest("needs root and runuser to run the client as nobody")
        # A copy nobody can run, wherever the build tree is.
        program = os.path.join(self.dir, "toolgate-hook")
        shutil.copy(TOOLGATE_HOOK, program)
        os.chmod(program, 0o755)
        r = run_hook("claude-code", fixture("claude-code", "pre_allow.json"), self.daemon.socket,
                     user="nobody", program=program)
        self.assertTrue(r.blocked(), r.text())
        self.assertIn("cannot get an answer", r.err)
        # Defence in depth: even if someone opens the permissions up, the
        # daemon checks the peer's credentials before reading a request.
        folder = os.path.dirname(self.daemon.socket)
        os.chmod(folder, 0o755)
        os.chmod(self.daemon.socket, 0o666)
        try:
            r = run_hook("claude-code", fixture("claude-code", "pre_allow.json"),
                         self.daemon.socket, user="nobody", program=program)
        finally:
            os.chmod(folder, 0o700)
            os.chmod(self.daemon.socket, 0o600)
        self.assertTrue(r.blocked(), r.text())
        self.assertIn("may not use this daemon", r.err)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
