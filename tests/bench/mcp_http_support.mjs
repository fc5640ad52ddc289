// What the HTTP gateway benchmarks share (mcp_http_latency.mjs,
// mcp_http_compare.mjs): starting the processes they measure, and the one
// call they time -- MCP 2026-07-28 tools/call "add" of the SDK 2.x server
// in tests/mcp/http-servers.mjs, checked for the right sum.
import { spawn } from 'node:child_process';

const children = [];
// Starts `command`; resolves once its output matches `ready` with the
// child, the match and its output so far.  Every child is stopped on exit.
export function start(command, args, ready) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = out.match(ready);
      if (m) { clearInterval(t); resolve({ child, match: m, output: () => out }); }
    }, 20);
    child.on('exit', (code) => { clearInterval(t); reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${out}`)); });
  });
}
export const stopAll = () => { for (const c of children) if (c.exitCode === null) c.kill('SIGTERM'); };
process.on('exit', stopAll);

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const headers = {
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'add',
};
let nextId = 0;
// One tools/call add(id, 1) at `url`; throws unless the answer is id + 1.
export async function callAdd(url) {
  const id = ++nextId;
  const r = await fetch(url, { method: 'POST', headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: id, b: 1 }, _meta: meta } }) })
    .catch((e) => { throw new Error(`${url}: call ${id}: ${e.cause?.message ?? e.message}`); });
  const text = await r.text();
  if (r.status !== 200 || !text.includes(`"text":"${id + 1}"`)) throw new Error(`${url}: ${r.status} ${text}`);
}
