// toolgate's Code Mode runner (docs/design.md §17): runs one model-written
// program, once, inside the sandbox the host set up, and exits.
//
// The host starts node with this file as its program (`--input-type=module
// -e`), stdin and stdout joined to one socket: the channel.  Each message is
// one line of JSON.  The runner is *not* trusted by the host -- the script
// runs in this same process and can write anything on the channel -- so the
// host keeps every fact that matters (which calls were denied, how much was
// printed, how many calls were made) on its own side.  What this file does is
// make the script's life pleasant: `tools.<name>(args)`, `callTool(name,
// args)`, `console.log`, errors that carry the pipeline's verdict.
//
// Host -> runner: {"type":"start","code":...,"tools":[...],"max_output":N}
//                 {"type":"result","id":N,"ok":true,"value":...}
//                 {"type":"result","id":N,"ok":false,"denied":B,"error":{...}}
// Runner -> host: {"type":"ready"}        (once, as soon as node runs)
//                 {"type":"call","id":N,"tool":"...","arguments":{...}}
//                 {"type":"log","text":"..."}
//                 {"type":"done","ok":true,"value":...}
//                 {"type":"done","ok":false,"error":"..."}
import vm from 'node:vm';
import util from 'node:util';

const send = (line) => process.stdout.write(line + '\n');

// The script's world: a fresh context with only the language's globals and
// the bindings below -- no require, no import(), no process.  This is a
// convenience, not the boundary (a vm context can be escaped); the boundary
// is the sandbox around this process.
const PRELUDE = `
class ToolError extends Error {
  constructor(info) {
    super(info.message);
    this.name = 'ToolError';
    this.code = info.code;
    this.stage = info.stage;
    this.source = info.source;
  }
}
class ToolDenied extends ToolError {
  constructor(info) { super(info); this.name = 'ToolDenied'; }
}
({ToolError, ToolDenied});
`;

const context = vm.createContext({}, {name: 'run_code', codeGeneration: {strings: true}});
const {ToolError, ToolDenied} = vm.runInContext(PRELUDE, context);

const pending = new Map();
let nextId = 1;

function callTool(name, args) {
  if (typeof name !== 'string' || name === '')
    return Promise.reject(new TypeError('callTool(name, args): name must be a non-empty string'));
  if (args === undefined) args = {};
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return Promise.reject(new TypeError(`${name}: the arguments must be an object`));
  let text;
  try {
    text = JSON.stringify(args);
  } catch (e) {
    return Promise.reject(new TypeError(`${name}: the arguments are not JSON (${e.message})`));
  }
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, {resolve, reject});
    send(`{"type":"call","id":${id},"tool":${JSON.stringify(name)},"arguments":${text}}`);
  });
}

let printed = 0;
let maxOutput = 65536;
function log(...args) {
  if (printed > maxOutput) return;  // the host bounds it too; this saves the channel
  const text = args.map((a) => (typeof a === 'string' ? a : util.inspect(a, {depth: 6}))).join(' ');
  printed += text.length + 1;
  send(JSON.stringify({type: 'log', text}));
}

function finish(ok, payload) {
  let line;
  if (ok) {
    let text;
    try {
      text = payload === undefined ? 'null' : JSON.stringify(payload);
      if (text === undefined) text = 'null';  // a function or a symbol
    } catch (e) {
      ok = false;
      payload = new TypeError(`the script's return value is not JSON: ${e.message}`);
    }
    if (ok) line = `{"type":"done","ok":true,"value":${text}}`;
  }
  if (!ok) line = JSON.stringify({type: 'done', ok: false, error: describe(payload)});
  process.stdout.write(line + '\n', () => process.exit(0));
}

function describe(e) {
  if (e && typeof e === 'object' && typeof e.message === 'string') {
    const name = typeof e.name === 'string' ? e.name : 'Error';
    // The script's own frames only: the runner's are noise to a model.
    const frames = typeof e.stack === 'string'
        ? e.stack.split('\n').filter((l) => l.includes('run_code.js')).slice(0, 5)
        : [];
    const code = typeof e.code === 'string' ? ` [${e.code}]` : '';
    return `${name}${code}: ${e.message}` + (frames.length ? '\n' + frames.join('\n') : '');
  }
  return `the script threw a non-error value: ${util.inspect(e, {depth: 2})}`;
}

function start(msg) {
  if (typeof msg.max_output === 'number') maxOutput = msg.max_output;
  const tools = Object.create(null);
  for (const name of Array.isArray(msg.tools) ? msg.tools : [])
    tools[name] = (args) => callTool(name, args);
  Object.freeze(tools);
  const consoleObject = {log, info: log, warn: log, error: log, debug: log};
  Object.assign(context, {tools, callTool, console: consoleObject, setTimeout, clearTimeout});
  let script;
  try {
    // Lines count from the script's first line: the wrapper adds one.
    script = new vm.Script(`(async () => {\n${msg.code}\n})()`,
                           {filename: 'run_code.js', lineOffset: -1});
  } catch (e) {
    finish(false, e);
    return;
  }
  let promise;
  try {
    promise = script.runInContext(context);
  } catch (e) {
    finish(false, e);
    return;
  }
  promise.then((v) => finish(true, v), (e) => finish(false, e));
}

function receive(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.exit(70);  // the host never sends this; nothing sensible to do
  }
  if (msg.type === 'start') return start(msg);
  if (msg.type === 'result') {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.ok) return p.resolve(msg.value);
    const info = msg.error || {};
    return p.reject(msg.denied ? new ToolDenied(info) : new ToolError(info));
  }
}

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    receive(line);
  }
});
// The host closed the channel: the run is over, whatever the script does.
process.stdin.on('end', () => process.exit(0));
send('{"type":"ready"}');
