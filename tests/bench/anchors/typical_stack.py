"""typical_stack.py -- the benchmark suite's typical stack written in-process
in Python: the comparison point for toolgate's BM_TypicalStack_Small
(tests/bench/bench.cpp), measured in the same run (tests/bench/anchors.py).

The same work per call as typical_stack.mjs (see there): parse the same
~200-byte call (json.loads) and check it; 3 pre-execute hooks, 5 guards, 2
execute wrappers around the body, 2 post-execute hooks, the result's text
blocks checked, 1 observer; each hook reads the tool's name and "/name" by
JSON Pointer.  It leaves out, in its favour, toolgate's strict parse, its
events, and isolation of a failing hook.

usage: python3 typical_stack.py SECONDS   -> prints ns per call
"""
import json
import sys
import time

CALL_TEXT = ('{"tool":"greet","call_id":"c-1","session_id":"s-1","arguments":{"name":"World",'
             '"path":"/workspace/src/main.cpp","command":"ls -la /workspace","mode":"read",'
             '"options":{"recursive":false,"limit":100}}}')


def pointer(doc, ptr):
    """RFC 6901, as a hook's arg lookup does it."""
    if ptr == "":
        return doc
    v = doc
    for raw in ptr[1:].split("/"):
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(v, dict):
            v = v.get(key)
        elif isinstance(v, list):
            try:
                v = v[int(key)]
            except (ValueError, IndexError):
                return None
        else:
            return None
    return v


def touches(call, args):
    name = pointer(args, "/name")
    return isinstance(name, str) and len(name) > 0 and len(call["tool"]) > 0


def pre(call, args):
    touches(call, args)
    return ("keep", None)


def guard(call, args):
    return ("abstain", None) if touches(call, args) else ("abstain", None)


def wrapper(call, args, nxt):
    return nxt()


def post(call, args, result):
    return ("accept", None)


def observer(call, args, result):
    pass


STACK = {"pre": [pre] * 3, "guards": [guard] * 5, "wrappers": [wrapper] * 2,
         "post": [post] * 2, "observers": [observer]}


def run_call(text):
    call = json.loads(text)
    if not (isinstance(call.get("tool"), str) and isinstance(call.get("call_id"), str)
            and isinstance(call.get("session_id"), str)):
        raise ValueError("bad call")
    args = call.get("arguments")
    if not isinstance(args, dict):
        raise ValueError("bad arguments")
    for h in STACK["pre"]:
        verdict, x = h(call, args)
        if verdict == "deny":
            return {"isError": True, "content": [{"type": "text", "text": x}]}
        if verdict == "rewrite":
            args = x
    denials = []
    for g in STACK["guards"]:
        verdict, why = g(call, args)
        if verdict == "deny":
            denials.append(why)
    if denials:
        return {"isError": True, "content": [{"type": "text", "text": "; ".join(denials)}]}

    def body():
        name = args.get("name")
        value = "Hello, " + (name if isinstance(name, str) else "") + "!"
        return {"isError": False, "content": [{"type": "text", "text": value}], "value": value}

    run = body
    for w in reversed(STACK["wrappers"]):
        run = (lambda w, nxt: lambda: w(call, args, nxt))(w, run)
    result = run()
    for h in STACK["post"]:
        verdict, x = h(call, args, result)
        if verdict == "block":
            result = {"isError": True, "content": [{"type": "text", "text": x}]}
        elif verdict == "replace":
            result = x
    for b in result["content"]:
        if b["type"] == "text" and not isinstance(b["text"], str):
            raise ValueError("text block without text")
    for o in STACK["observers"]:
        o(call, args, result)
    return result


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    sink = 0
    for _ in range(2000):
        sink += len(run_call(CALL_TEXT)["content"])
    n = 0
    t0 = time.perf_counter_ns()
    end = t0 + int(seconds * 1e9)
    now = t0
    while now < end:
        for _ in range(200):
            sink += len(run_call(CALL_TEXT)["content"])
        n += 200
        now = time.perf_counter_ns()
    if sink != n + 2000:
        raise SystemExit("wrong results")
    print(json.dumps({"ns_per_call": (now - t0) / n, "calls": n}))


if __name__ == "__main__":
    main()
