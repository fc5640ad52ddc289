// typical_stack.mjs -- the benchmark suite's typical stack written in-process
// in JavaScript: the comparison point for toolgate's BM_TypicalStack_Small
// (tests/bench/bench.cpp), measured in the same run (tests/bench/anchors.py).
//
// The same work per call as the toolgate case, no less:
//   - parse the same ~200-byte call text (JSON.parse) and check its identity
//     fields and that the arguments are an object;
//   - 3 pre-execute hooks (waterfall: each may deny or rewrite), 5 guards
//     (every one runs; any denial denies), 2 execute wrappers around the
//     body, the body ("Hello, NAME!"), 2 post-execute hooks (may block or
//     replace), the result built as content blocks plus a value and its
//     text blocks checked, 1 observer;
//   - each hook reads what bench_hooks.c's hooks read: the tool's name and
//     one argument by JSON Pointer ("/name").
// What it leaves out, in its favour: toolgate's strict parse (duplicate
// keys, UTF-8), its events, and isolation of one hook's failure from the
// next (a throwing hook here ends the call).
//
// usage: node typical_stack.mjs SECONDS   -> prints ns per call
const callText =
  '{"tool":"greet","call_id":"c-1","session_id":"s-1","arguments":{"name":"World",' +
  '"path":"/workspace/src/main.cpp","command":"ls -la /workspace","mode":"read",' +
  '"options":{"recursive":false,"limit":100}}}';

// RFC 6901, as a hook's arg lookup does it.
function pointer(doc, ptr) {
  if (ptr === '') return doc;
  let v = doc;
  for (const raw of ptr.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (v === null || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? v[Number(key)] : v[key];
  }
  return v;
}
const touches = (call, args) => {
  const name = pointer(args, '/name');
  return typeof name === 'string' && name.length > 0 && call.tool.length > 0;
};
const pre = (call, args) => (touches(call, args), { verdict: 'keep' });
const guard = (call, args) => (touches(call, args) ? { verdict: 'abstain' } : { verdict: 'abstain' });
const wrapper = (call, args, next) => next();
const post = () => ({ verdict: 'accept' });
const observer = () => {};
const stack = { pre: [pre, pre, pre], guards: [guard, guard, guard, guard, guard],
  wrappers: [wrapper, wrapper], post: [post, post], observers: [observer] };

function runCall(text) {
  const call = JSON.parse(text);
  if (typeof call.tool !== 'string' || typeof call.call_id !== 'string' || typeof call.session_id !== 'string')
    throw new Error('bad call');
  let args = call.arguments;
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new Error('bad arguments');
  for (const h of stack.pre) {
    const r = h(call, args);
    if (r.verdict === 'deny') return { isError: true, content: [{ type: 'text', text: r.reason }] };
    if (r.verdict === 'rewrite') args = r.arguments;
  }
  const denials = [];
  for (const g of stack.guards) {
    const r = g(call, args);
    if (r.verdict === 'deny') denials.push(r.reason);
  }
  if (denials.length) return { isError: true, content: [{ type: 'text', text: denials.join('; ') }] };
  const body = () => {
    const value = 'Hello, ' + (typeof args.name === 'string' ? args.name : '') + '!';
    return { isError: false, content: [{ type: 'text', text: value }], value };
  };
  let run = body;
  for (let i = stack.wrappers.length - 1; i >= 0; --i) {
    const w = stack.wrappers[i], next = run;
    run = () => w(call, args, next);
  }
  let result = run();
  for (const h of stack.post) {
    const r = h(call, args, result);
    if (r.verdict === 'block') result = { isError: true, content: [{ type: 'text', text: r.reason }] };
    else if (r.verdict === 'replace') result = r.result;
  }
  for (const b of result.content)
    if (b.type === 'text' && typeof b.text !== 'string') throw new Error('text block without text');
  for (const o of stack.observers) o(call, args, result);
  return result;
}

const seconds = Number(process.argv[2] ?? 1);
let sink = 0;
for (let i = 0; i < 20000; i++) sink += runCall(callText).content.length;  // warm up the JIT
let n = 0;
const t0 = process.hrtime.bigint();
const end = t0 + BigInt(Math.round(seconds * 1e9));
let now = t0;
while (now < end) {
  for (let i = 0; i < 1000; i++) sink += runCall(callText).content.length;
  n += 1000;
  now = process.hrtime.bigint();
}
if (sink !== n + 20000) throw new Error('wrong results');
console.log(JSON.stringify({ ns_per_call: Number(now - t0) / n, calls: n }));
