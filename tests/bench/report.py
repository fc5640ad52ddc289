#!/usr/bin/python3
"""report.py BENCH.json -- the README's performance table: medians (CPU time
per call) and the ratios the targets in docs/design.md §11 are stated in, all
from the same run."""
import json
import sys

data = json.load(open(sys.argv[1]))
median = {}
counters = {}
for b in data["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]
    unit = {"ns": 1, "us": 1e3, "ms": 1e6}[b["time_unit"]]
    median[name] = (b["cpu_time"] * unit, b["real_time"] * unit)
    counters[name] = b


def ns(name, real=False):
    return median[name][1 if real else 0]


def fmt(x):
    return f"{x / 1000:.2f} µs" if x >= 1000 else f"{x:.0f} ns"


rows = []
direct, empty = ns("BM_DirectToolBody"), ns("BM_PipelineEmpty")
rows.append(("tool body called directly (+ one argument parse)", fmt(direct), "baseline", f'{counters["BM_DirectToolBody"].get("allocs", 0):.0f}'))
rows.append(("the same call through an empty pipeline", fmt(empty), f"{empty / direct:.2f}× baseline (target ≤ 1.2×)", f'{counters["BM_PipelineEmpty"].get("allocs", 0):.0f}'))
t1 = "BM_TypicalStack_Small/real_time/threads:1"
t2 = "BM_TypicalStack_Small/real_time/threads:2"
rows.append(("typical stack (13 plugin hooks), ~200 B arguments", fmt(ns(t1)), f"{ns(t1) / direct:.1f}× baseline (target ≤ 1 µs)", f'{counters[t1].get("allocs", 0):.0f}'))
rows.append(("typical stack, ~64 KiB arguments", fmt(ns("BM_TypicalStack_Large")), "", f'{counters["BM_TypicalStack_Large"].get("allocs", 0):.0f}'))
if t2 in counters:
    ips1, ips2 = counters[t1]["items_per_second"], counters[t2]["items_per_second"]
    rows.append(("typical stack, 2 threads (throughput)", f"{ips2 / 1000:.0f} k calls/s", f"{ips2 / ips1:.2f}× one thread's {ips1 / 1000:.0f} k/s", ""))
spawn = ns("BM_SpawnHookProcess", real=True)
# The cost of one more hook: the least-squares slope over 0/1/5/20/50 hooks.
for kind in ["pre_execute", "guard", "execute_wrapper", "post_execute", "result_observer"]:
    points = [(n, ns(f"BM_HookSlope/{kind}/{n}")) for n in (0, 1, 5, 20, 50)
              if f"BM_HookSlope/{kind}/{n}" in median]
    if len(points) < 2:
        continue
    mx = sum(p[0] for p in points) / len(points)
    my = sum(p[1] for p in points) / len(points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    rows.append((f"one more {kind.replace('_', '-')} hook (slope over 0/1/5/20/50 hooks)", fmt(slope),
                 f"{fmt(points[-1][1])} with 50", ""))
for g in ["guard_paths", "guard_commands", "guard_secrets", "rate_limit"]:
    name = f"BM_Guard/{g}"
    if name in median:
        none = f"BM_GuardNone/{g}"
        extra = f"{ns(name) - ns(none):+.0f} ns over the same call through the empty pipeline" if none in median else ""
        rows.append((f"production guard {g.replace('_', '-')} (whole call)", fmt(ns(name)), extra, f'{counters[name].get("allocs", 0):.0f}'))
redis = "BM_RateLimitRedis/real_time"
if redis in median and "BM_Guard/rate_limit" in median:
    rows.append(("rate-limit with its buckets in Redis on loopback (whole call, wall clock)", fmt(ns(redis, real=True)),
                 f"+{fmt(ns(redis, real=True) - ns('BM_Guard/rate_limit', real=True))} over the same limit in memory", f'{counters[redis].get("allocs", 0):.0f}'))
rows.append(("spawning a compiled hook process per call (wall clock)", fmt(spawn), "the comparison point", ""))
mcp0, mcp1 = "BM_McpToolsCall/through_gateway:0/real_time", "BM_McpToolsCall/through_gateway:1/real_time"
if mcp0 in median and mcp1 in median:
    d, g = ns(mcp0, real=True), ns(mcp1, real=True)
    rows.append(("MCP tools/call, client → server directly (wall clock)", fmt(d), "baseline for the gateway", ""))
    rows.append(("MCP tools/call through `toolgate mcp` (empty stack)", fmt(g), f"+{fmt(g - d)} added per call (target < 100 µs)", ""))
if "BM_ReloadLatency/iterations:20/manual_time" in median:
    r = median["BM_ReloadLatency/iterations:20/manual_time"][1]
    rows.append(("hot reload: rebuilt file complete → new generation serving (watcher)", f"{r / 1e6:.1f} ms", "of which 20 ms debounce + 5 ms stability check, by design", ""))
if "BM_ReloadExplicit/iterations:50" in median:
    r = median["BM_ReloadExplicit/iterations:50"][1]
    rows.append(("hot reload on `Host::reload()`/SIGHUP: copy, hash, load, init, publish", f"{r / 1e6:.2f} ms", "the load itself", ""))

print("| case | median | ratio | allocations / call |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
