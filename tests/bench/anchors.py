#!/usr/bin/python3
"""anchors.py BUILD_DIR [ROUNDS] -- toolgate's typical stack against the same
stack written in-process in Node.js and in Python, and against hooks spawned
as processes (a compiled one, and `sh` + `jq`), measured side by side:
interleaved blocks, round by round, so a change in the machine's speed
touches every case alike.  Medians over the rounds; ratios per round, then
their median.

Each round runs, one after another:
  - toolgate_bench's BM_TypicalStack_Small (1 thread) and BM_DirectToolBody
    (the tool body plus one parse of the call: the floor), 0.3 s each;
  - anchors/typical_stack.mjs (Debian's or this machine's `node`) and
    anchors/typical_stack.py (Debian's /usr/bin/python3), 0.3 s each;
  - 20 spawns each of the compiled hook process (toolgate_hook_process) and
    of `sh -c 'jq -e ...'` deciding on the call's "name" argument.
Writes BUILD_DIR/anchors.json and prints the table.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
BENCH = os.path.join(BUILD, "tests", "bench", "toolgate_bench")
HOOK = os.path.join(BUILD, "tests", "bench", "toolgate_hook_process")
NODE = shutil.which("node")
CALL = ('{"tool":"greet","call_id":"c-1","session_id":"s-1","arguments":{"name":"World",'
        '"path":"/workspace/src/main.cpp","command":"ls -la /workspace","mode":"read",'
        '"options":{"recursive":false,"limit":100}}}')


def toolgate_cases():
    out = subprocess.run([BENCH, "--benchmark_filter=^(BM_DirectToolBody|BM_TypicalStack_Small/real_time/threads:1)$",
                          "--benchmark_min_time=0.3", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    got = {}
    for b in json.loads(out)["benchmarks"]:
        unit = {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
        got[b["name"].split("/")[0]] = b["real_time"] * unit
    return got["BM_DirectToolBody"], got["BM_TypicalStack_Small"]


def anchor(cmd):
    out = subprocess.run(cmd + ["0.3"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["ns_per_call"]


def spawned(cmd, n=20):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        subprocess.run(cmd, input=CALL, capture_output=True, text=True, check=True)
    return (time.perf_counter_ns() - t0) / n


rows = {k: [] for k in ["direct", "toolgate", "node", "python", "spawn_c", "spawn_jq"]}
for r in range(ROUNDS):
    direct, stack = toolgate_cases()
    rows["direct"].append(direct)
    rows["toolgate"].append(stack)
    if NODE:
        rows["node"].append(anchor([NODE, os.path.join(HERE, "anchors", "typical_stack.mjs")]))
    rows["python"].append(anchor(["/usr/bin/python3", os.path.join(HERE, "anchors", "typical_stack.py")]))
    rows["spawn_c"].append(spawned([HOOK]))
    if shutil.which("jq"):
        rows["spawn_jq"].append(spawned(["sh", "-c", "jq -e '.arguments.name | length > 0' >/dev/null"]))

med = {k: statistics.median(v) for k, v in rows.items() if v}
ratio = {k: statistics.median(a / t for a, t in zip(rows[k], rows["toolgate"])) for k in med if k != "toolgate"}
json.dump({"rounds": ROUNDS, "ns": rows, "median_ns": med, "ratio_to_toolgate": ratio,
           "node": subprocess.run([NODE, "--version"], capture_output=True, text=True).stdout.strip() if NODE else None,
           "python": subprocess.run(["/usr/bin/python3", "--version"], capture_output=True, text=True).stdout.strip()},
          open(os.path.join(BUILD, "anchors.json"), "w"), indent=1)


def fmt(ns):
    return f"{ns / 1e6:.2f} ms" if ns >= 1e6 else f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.0f} ns"


print(f"\nThe typical stack (3 pre, 5 guards, 2 wrappers, 2 post, 1 observer), ~200 B call, "
      f"{ROUNDS} interleaved rounds, medians:\n")
print("| case | per call | toolgate is ... |")
print("|---|---|---|")
labels = {"direct": "tool body + one parse (the floor)", "toolgate": "toolgate, 13 `.so` hooks",
          "node": "the same stack in-process in Node.js", "python": "the same stack in-process in Python",
          "spawn_c": "one compiled hook process spawned per call", "spawn_jq": "one `sh` + `jq` hook spawned per call"}
for k in ["direct", "toolgate", "node", "python", "spawn_c", "spawn_jq"]:
    if k not in med:
        continue
    if k == "toolgate":
        rel = "—"
    elif k == "direct":
        rel = f"{1 / ratio[k]:.2f}× the floor"
    else:
        r = ratio[k]
        rel = f"{r:.2f}× faster" if r >= 1 else f"{1 / r:.2f}× slower"
    print(f"| {labels[k]} | {fmt(med[k])} | {rel} |")
