#!/usr/bin/env python3
"""Per-hook latency, end to end (process start to answer), side by side in
one run: `toolgate-hook claude-code` (what `toolgate hook install` writes)
and `toolgate hook claude-code` against a running `toolgate serve`,
`toolgate hook claude-code --no-daemon` (the manifests loaded in the hook
process), and an empty compiled hook process as the floor.  The three are
interleaved round by round, so a change in the machine's speed touches all
of them alike.  Wall clock (this is what an agent waits for).

usage: hook_latency.py BUILD_DIR [ROUNDS]   (BUILD_DIR: build/bench)
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

build = os.path.abspath(sys.argv[1])
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
toolgate = os.path.join(build, "host", "toolgate")
floor = os.path.join(build, "tests", "bench", "toolgate_hook_process")
payload = open(os.path.join(root, "tests/agent_hooks/fixtures/claude-code/pre_deny.json"),
               "rb").read()

work = tempfile.mkdtemp(prefix="tg-hook-bench-")
manifest = os.path.join(work, "agent-hooks.json")
with open(os.path.join(root, "samples/manifests/agent-hooks.json")) as f:
    text = f.read().replace("../../plugins/", os.path.join(build, "plugins") + "/")
with open(manifest, "w") as f:
    f.write(text)
sock = os.path.join(work, "run", "toolgate.sock")
daemon = subprocess.Popen([toolgate, "serve", manifest, "--socket", sock, "--no-probe"],
                          stderr=subprocess.DEVNULL)
while not os.path.exists(sock):
    time.sleep(0.01)

cases = {
    "empty compiled hook process (floor)": [floor],
    "toolgate-hook, daemon": [os.path.join(build, "host", "toolgate-hook"), "claude-code",
                              "--socket", sock],
    "toolgate hook, daemon": [toolgate, "hook", "claude-code", "--socket", sock],
    "toolgate hook --no-daemon": [toolgate, "hook", "claude-code", "--no-daemon", manifest],
}
times = {name: [] for name in cases}
try:
    for r in range(rounds):
        for name, cmd in cases.items():
            if "no-daemon" in name and r % 4:
                continue  # the slow one, every fourth round
            start = time.perf_counter()
            out = subprocess.run(cmd, input=payload, capture_output=True)
            times[name].append(time.perf_counter() - start)
            if "toolgate" in name and b"deny" not in out.stdout:
                sys.exit(f"{name} did not deny: {out.stdout!r} {out.stderr!r}")
finally:
    daemon.send_signal(signal.SIGTERM)
    daemon.wait()
    shutil.rmtree(work, ignore_errors=True)

base = statistics.median(times["empty compiled hook process (floor)"])
print(f"{rounds} rounds, interleaved; wall clock from process start to answer")
print(f"{'case':40} {'runs':>5} {'p50 ms':>8} {'p90 ms':>8} {'x floor':>8}")
for name, t in times.items():
    t.sort()
    p50, p90 = statistics.median(t), t[int(len(t) * 0.9)]
    print(f"{name:40} {len(t):5} {p50 * 1e3:8.2f} {p90 * 1e3:8.2f} {p50 / base:8.2f}")
