// End-to-end tests of `toolgate mcp --listen`: MCP 2026-07-28 over
// Streamable HTTP, with the official SDK 2.x client and raw HTTP requests,
// against real servers (server-filesystem, the tests' own).  Every gateway
// listens on 127.0.0.1 on a port the kernel picks.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './net-support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOOLGATE = process.env.TOOLGATE;
const PLUGINS = process.env.TOOLGATE_PLUGIN_DIR;
const fsServer = path.join(here, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const testServer = path.join(here, 'test-server.mjs');
const modernServer = path.join(here, 'modern-server.mjs');

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-http-e2e-')));
const root = path.join(tmp, 'root');
const outside = path.join(tmp, 'outside');
mkdirSync(root);
mkdirSync(outside);
writeFileSync(path.join(root, 'hello.txt'), 'hello over http\n');
writeFileSync(path.join(root, 'other.txt'), 'the other file\n');
after(() => rmSync(tmp, { recursive: true, force: true }));

const manifest = path.join(tmp, 'manifest.json');
writeFileSync(manifest, JSON.stringify({
  toolgate: 1,
  plugins: [
    { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
      config: { rules: [
        { name: 'ask-for-ask-me', tools: 'write_file', when: [{ pointer: '/path', regex: 'ask-me' }],
          verdict: 'ask', reason: 'writing a file named ask-me needs approval' } ] } },
    { id: 'toolgate.guard-paths', path: path.join(PLUGINS, 'toolgate_guard-paths.so'),
      config: { read_roots: [root], write_roots: [root], base: root } },
  ],
}, null, 2));

const token = 'e2e-token-0123456789abcdef';
const tokenFile = path.join(tmp, 'tokens');
writeFileSync(tokenFile, `# the tests' token\n${token}\n`);
chmodSync(tokenFile, 0o600);

let logCounter = 0;
const newLog = () => path.join(tmp, `server-${++logCounter}.log`);
const readLog = (file) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
async function until(what, check, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const running = [];
after(() => { for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); });

// `toolgate mcp --listen 127.0.0.1:0 ...`: resolves once it says where it
// listens.  The server is a Node.js script (`server`) or a URL (`upstream`).
async function listen({ args = [], server = [fsServer, root], log = '', manifests = [manifest], upstream = null } = {}) {
  const target = upstream ? [upstream] : [process.execPath, ...server];
  const child = spawn(TOOLGATE, ['mcp', '--listen', '127.0.0.1:0', ...manifests, ...args, '--', ...target],
    { env: { ...process.env, TG_TEST_LOG: log }, stdio: ['ignore', 'ignore', 'pipe'] });
  running.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  await until(`the listener (stderr: ${stderr})`, () => /the MCP server speaks|stopped|error/.test(stderr) && /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr));
  const url = stderr.match(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)[1];
  return {
    url, port: Number(new URL(url).port), child, exited, stderr: () => stderr,
    async stop() { child.kill('SIGTERM'); return exited; },
  };
}

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const mcpHeaders = (method, name) => ({
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method, ...(name ? { 'Mcp-Name': name } : {}),
});
async function post(url, body, headers) {
  const r = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await r.text();
  const isJson = /^application\/json/.test(r.headers.get('content-type') ?? '');
  return { status: r.status, headers: r.headers, text, json: text && isJson ? JSON.parse(text) : null };
}
const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: meta } });

// A raw HTTP/1.1 request over a socket, for what fetch will not send (a
// foreign Host) or to hold a connection open.
// With `resetIsEnd`, a connection reset counts as the end: a socket the
// listener closes at accept may reach the client as a reset when the request
// was already on its way (a race of the kernel's, not a behaviour).
function rawRequest(port, text, { resetIsEnd = false } = {}) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    let got = '';
    s.on('data', (d) => { got += d; });
    s.on('end', () => resolve(got));
    s.on('error', (e) => (resetIsEnd && e.code === 'ECONNRESET' ? resolve(got) : reject(e)));
    setTimeout(() => { s.destroy(); resolve(got); }, 5000);
  });
}

const nodeMajor = Number(process.versions.node.split('.')[0]);
const modernTest = (name, fn) => test(name, nodeMajor >= 20 ? {} : {
  skip: `the SDK 2.x client needs Node.js >= 20; this is Node.js ${process.version}`,
}, fn);

async function sdkClient(url, { elicit = null, headers = {} } = {}) {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const client = new Client({ name: 'toolgate-http-e2e', version: '1.0.0' }, {
    capabilities: elicit ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: { pin: '2026-07-28' } },
  });
  if (elicit) client.setRequestHandler('elicitation/create', elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}
const textOf = (r) => r.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');

modernTest('the SDK 2.x client over HTTP: lists, reads, a denial writes nothing, an ask is a question', async () => {
  const g = await listen();
  try {
    const asked = [];
    const c = await sdkClient(g.url, { elicit: async (req) => { asked.push(req.params.message); return { action: 'accept', content: {} }; } });
    assert.equal(c.getNegotiatedProtocolVersion(), '2026-07-28');
    const { tools } = await c.listTools();
    assert.ok(tools.some((t) => t.name === 'read_text_file'));
    assert.equal(textOf(await c.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } })), 'hello over http\n');
    const target = path.join(outside, 'x.txt');
    const denied = await c.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(denied.isError, true);
    assert.equal(denied._meta['toolgate/error'].code, 'denied');
    assert.ok(!existsSync(target), 'the denied write did not happen');
    const approved = path.join(root, 'ask-me.txt');
    const r = await c.callTool({ name: 'write_file', arguments: { path: approved, content: 'approved' } });
    assert.equal(r.isError ?? false, false, JSON.stringify(r));
    assert.equal(readFileSync(approved, 'utf8'), 'approved');
    assert.equal(asked.length, 1);
    assert.match(asked[0], /writing a file named ask-me needs approval/);
    await c.close();
  } finally { await g.stop(); }
});

modernTest('two SDK clients at once over one listener each get their own answers (their ids collide)', async () => {
  const g = await listen();
  try {
    const [a, b] = await Promise.all([sdkClient(g.url), sdkClient(g.url)]);
    for (let round = 0; round < 5; ++round) {
      const [ra, rb] = await Promise.all([
        a.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } }),
        b.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'other.txt') } }),
      ]);
      assert.equal(textOf(ra), 'hello over http\n');
      assert.equal(textOf(rb), 'the other file\n');
    }
    await Promise.all([a.close(), b.close()]);
  } finally { await g.stop(); }
});

// ---- 2025-era clients: a session the listener keeps (host/README "2025-era clients over HTTP")

// The official SDK 1.32 client over Streamable HTTP: it speaks 2025-11-25
// (initialize, Mcp-Session-Id, a GET stream, questions on a call's stream).
async function legacyClient(url, { elicit = null, headers = {} } = {}) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const client = new Client({ name: 'toolgate-http-e2e-2025', version: '1.0.0' },
    { capabilities: elicit ? { elicitation: { form: {} } } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}
const legacyHeaders = (session, version = '2025-11-25') => ({
  'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': version, ...(session ? { 'Mcp-Session-Id': session } : {}),
});
const initialize = (id, version = '2025-11-25', capabilities = {}) => ({ jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion: version, capabilities, clientInfo: { name: 'raw-2025', version: '1' } } });

test('a 2025-11-25 client (SDK 1.32) over --listen: a session; lists, reads, a denial writes nothing, an approval asked on the call\'s stream, DELETE ends it', async () => {
  const g = await listen();
  try {
    const asked = [];
    let answer = 'accept';
    const { client: c, transport } = await legacyClient(g.url, {
      elicit: async (req) => { asked.push(req.params.message); return { action: answer, content: {} }; },
    });
    assert.match(transport.sessionId, /^[0-9a-f]{32}$/);
    assert.equal(c.getServerVersion().name, 'secure-filesystem-server');
    const { tools } = await c.listTools();
    assert.ok(tools.some((t) => t.name === 'read_text_file'));
    const read = await c.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } });
    assert.equal(textOf(read), 'hello over http\n');
    assert.equal(read.resultType, undefined, 'no 2026-07-28 member reaches a 2025 client');
    const target = path.join(outside, 'legacy.txt');
    const denied = await c.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(denied.isError, true);
    assert.equal(denied._meta['toolgate/error'].code, 'denied');
    assert.ok(!existsSync(target), 'the denied write did not happen');
    // The approval: asked as elicitation/create on the call's own stream.
    const approved = path.join(root, 'ask-me-2025.txt');
    const r = await c.callTool({ name: 'write_file', arguments: { path: approved, content: 'approved' } });
    assert.equal(r.isError ?? false, false, JSON.stringify(r));
    assert.equal(readFileSync(approved, 'utf8'), 'approved');
    assert.equal(asked.length, 1);
    assert.match(asked[0], /writing a file named ask-me needs approval/);
    // Declined: nothing written.
    answer = 'decline';
    const declinedFile = path.join(root, 'ask-me-declined.txt');
    const d = await c.callTool({ name: 'write_file', arguments: { path: declinedFile, content: 'no' } });
    assert.equal(d.isError, true, JSON.stringify(d));
    assert.ok(!existsSync(declinedFile), 'the declined write did not happen');
    assert.equal(asked.length, 2);
    // DELETE ends the session: its id is unknown afterwards.
    const session = transport.sessionId;
    await transport.terminateSession();
    const after = await post(g.url, { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }, legacyHeaders(session));
    assert.equal(after.status, 404, after.text);
    assert.match(after.json.error.message, /send initialize without Mcp-Session-Id/);
    await c.close();
  } finally { await g.stop(); }
});

test('a 2025-11-25 client over --listen: progress on the call\'s stream, notifications/cancelled, a server\'s question asked and answered, list changes on its GET stream', async () => {
  const log = newLog();
  const modernLog = newLog();
  const g = await listen({ server: [modernServer], log: modernLog });
  const p = await listen({ server: [testServer], log });
  try {
    const seen = [];
    const progress = await legacyClient(p.url);
    const r = await progress.client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (n) => seen.push(n.progress) });
    assert.equal(textOf(r), 'done');
    assert.deepEqual(seen, [1, 2, 3]);
    await progress.client.close();

    // notifications/cancelled names the client's own request id.
    const init = await post(p.url, initialize(1), legacyHeaders(null));
    const session = init.headers.get('mcp-session-id');
    const sleeping = post(p.url, { jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'sleep', arguments: { ms: 20000, id: 'legacy-cancel' } } },
      legacyHeaders(session)).catch((e) => e);
    await until('the call to start', () => readLog(log).includes('started sleep legacy-cancel'));
    const cancel = await post(p.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'changed my mind' } }, legacyHeaders(session));
    assert.equal(cancel.status, 202);
    await until('the server to hear of the cancellation', () => readLog(log).includes('cancelled sleep legacy-cancel'));
    await sleeping;

    const asked = [];
    const { client: c } = await legacyClient(g.url, {
      elicit: async (req) => { asked.push(req.params.message); return { action: 'accept', content: { name: 'Ada' } }; },
    });
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    let changes = 0;
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => { changes += 1; });
    // A 2026-07-28 server's question (input_required) reaches the 2025
    // client as a request on its call's stream; the answer goes back.
    const a = await c.callTool({ name: 'ask', arguments: {} });
    assert.deepEqual(asked, ['Type your name']);
    assert.match(textOf(a), /Ada/, JSON.stringify(a));
    // A list change reaches the session's GET stream (the SDK opens one,
    // which the listener turns into a subscriptions/listen).
    await until('the GET stream', () => readLog(modernLog).includes('subscriptions/listen'));
    const m = await c.callTool({ name: 'mutate', arguments: {} });
    assert.equal(m.isError ?? false, false, JSON.stringify(m));
    await until('the list change on the GET stream', () => changes > 0);
    await c.close();
  } finally { await g.stop(); await p.stop(); }
});

test('2025-era sessions over --listen, raw: unknown, ended and foreign sessions, version mismatch, a second GET stream replaces the first, initialize twice', async () => {
  const other = 'e2e-other-token-0123456789';
  const twoTokens = path.join(tmp, 'two-tokens');
  writeFileSync(twoTokens, `${token}\n${other}\n`);
  chmodSync(twoTokens, 0o600);
  const g = await listen({ args: ['--token-file', twoTokens] });
  const auth = (t) => ({ Authorization: `Bearer ${t}` });
  try {
    const init = await post(g.url, initialize(1, '2025-06-18'), { ...legacyHeaders(null, '2025-06-18'), ...auth(token) });
    assert.equal(init.status, 200, init.text);
    assert.equal(init.json.id, 1);
    assert.equal(init.json.result.protocolVersion, '2025-06-18');
    assert.equal(init.json.result.serverInfo.name, 'secure-filesystem-server');
    assert.equal(init.json.result.capabilities.extensions, undefined);
    const session = init.headers.get('mcp-session-id');
    assert.match(session, /^[0-9a-f]{32}$/);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const ok = await post(g.url, list, { ...legacyHeaders(session, '2025-06-18'), ...auth(token) });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(ok.json.result.tools.length > 0);
    assert.equal(ok.json.result.ttlMs, undefined);
    // The session is the token's that opened it.
    const foreign = await post(g.url, list, { ...legacyHeaders(session, '2025-06-18'), ...auth(other) });
    assert.equal(foreign.status, 404, foreign.text);
    const unknown = await post(g.url, list, { ...legacyHeaders('0'.repeat(32), '2025-06-18'), ...auth(token) });
    assert.equal(unknown.status, 404, unknown.text);
    const mismatch = await post(g.url, list, { ...legacyHeaders(session, '2025-11-25'), ...auth(token) });
    assert.equal(mismatch.status, 400, mismatch.text);
    assert.match(mismatch.json.error.message, /this session speaks 2025-06-18/);
    const again = await post(g.url, initialize(3), { ...legacyHeaders(session, '2025-06-18'), ...auth(token) });
    assert.equal(again.status, 400, again.text);
    assert.match(again.json.error.message, /initialized already/);
    const ping = await post(g.url, { jsonrpc: '2.0', id: 'p', method: 'ping' }, { ...legacyHeaders(session, '2025-06-18'), ...auth(token) });
    assert.deepEqual(ping.json, { jsonrpc: '2.0', id: 'p', result: {} });
    // One GET stream per session; a second is refused while it is open.
    const ac = new AbortController();
    const stream = await fetch(g.url, { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': session, ...auth(token) }, signal: ac.signal });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    // A second replaces the first (a client reconnecting after a blip).
    const first = sseMessages(stream);
    const second = await fetch(g.url, { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': session, ...auth(token) } });
    assert.equal(second.status, 200);
    await first.done;  // the first stream ended
    second.body.cancel();
    ac.abort();
    // GET without a session is not a 2026-07-28 thing either.
    const bare = await fetch(g.url, { headers: { Accept: 'text/event-stream', ...auth(token) } });
    assert.equal(bare.status, 405);
    // A foreign token cannot end the session; its own can.
    const del = (t) => fetch(g.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': session, ...auth(t) } });
    assert.equal((await del(other)).status, 404);
    assert.equal((await del(token)).status, 200);
    assert.equal((await post(g.url, list, { ...legacyHeaders(session, '2025-06-18'), ...auth(token) })).status, 404);
    // A request with neither a session nor 2026-07-28 is told what to do.
    const lost = await post(g.url, list, { ...legacyHeaders(null), ...auth(token) });
    assert.equal(lost.status, 400, lost.text);
  } finally { await g.stop(); }
});

// The messages of an SSE response as they arrive.
function sseMessages(response) {
  const reader = response.body.getReader();
  let got = '';
  const done = (async () => { for (;;) { const { value, done: end } = await reader.read(); if (end) return; got += Buffer.from(value).toString(); } })().catch(() => {});
  const messages = () => got.split('\n\n').filter((e) => e.includes('data: ')).map((e) => JSON.parse(e.split('data: ')[1]));
  return { messages, done, raw: () => got };
}

test('2025-era sessions over --listen, raw: the approval is asked on the call\'s stream and counts only from its own session; a body that begins with whitespace is retried whole', async () => {
  const g = await listen();
  try {
    const open = async () => (await post(g.url, initialize(1, '2025-11-25', { elicitation: {} }), legacyHeaders(null))).headers.get('mcp-session-id');
    const mine = await open();
    const theirs = await open();
    const file = path.join(root, 'ask-me-raw.txt');
    const body = '\n  ' + JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'write_file', arguments: { path: file, content: 'raw' } } });
    const r = await fetch(g.url, { method: 'POST', headers: legacyHeaders(mine), body });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const sse = sseMessages(r);
    await until('the question', () => sse.messages().some((m) => m.method === 'elicitation/create'));
    const q = sse.messages().find((m) => m.method === 'elicitation/create');
    assert.match(q.id, /^toolgate-\d+$/);
    assert.match(q.params.message, /writing a file named ask-me needs approval/);
    assert.equal(JSON.stringify(q).includes('requestState'), false, 'the sealed state stays in the listener');
    // Answered from another session: it does not count.
    const answer = { jsonrpc: '2.0', id: q.id, result: { action: 'accept', content: {} } };
    assert.equal((await post(g.url, answer, legacyHeaders(theirs))).status, 202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(!existsSync(file), 'another session\'s answer approved nothing');
    assert.equal(sse.messages().some((m) => m.id === 7), false);
    // Its own session's answer does, once.
    assert.equal((await post(g.url, answer, legacyHeaders(mine))).status, 202);
    await until('the answer', () => sse.messages().some((m) => m.id === 7));
    const done = sse.messages().find((m) => m.id === 7);
    assert.equal(done.result.isError ?? false, false, JSON.stringify(done));
    assert.equal(done.result.resultType, undefined);
    assert.equal(readFileSync(file, 'utf8'), 'raw');
    await sse.done;
    // The listener's own members are not the client's to write.
    const forged = await post(g.url, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'write_file', requestState: 'x', arguments: { path: file, content: 'forged' } } }, legacyHeaders(mine));
    assert.equal(forged.status, 400, forged.text);
    assert.match(forged.json.error.message, /carries no params.requestState/);
    assert.equal(readFileSync(file, 'utf8'), 'raw');
  } finally { await g.stop(); }
});

test('2025-era sessions over --listen: a question not answered within --question-timeout-ms ends its call, and a late answer approves nothing', async () => {
  const g = await listen({ args: ['--question-timeout-ms', '500'] });
  try {
    const session = (await post(g.url, initialize(1, '2025-11-25', { elicitation: {} }), legacyHeaders(null))).headers.get('mcp-session-id');
    const file = path.join(root, 'ask-me-unanswered.txt');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'write_file', arguments: { path: file, content: 'late' } } });
    const asked = Date.now();
    const r = await fetch(g.url, { method: 'POST', headers: legacyHeaders(session), body });
    const sse = sseMessages(r);
    await until('the question', () => sse.messages().some((m) => m.method === 'elicitation/create'));
    const q = sse.messages().find((m) => m.method === 'elicitation/create');
    await until('the call ends unanswered', () => sse.messages().some((m) => m.id === 9));
    const ended = sse.messages().find((m) => m.id === 9);
    const waited = Date.now() - asked;
    assert.match(ended.error?.message ?? '', /did not answer the gateway's question in time/, JSON.stringify(ended));
    assert.ok(waited >= 400 && waited < 10000, `ended after ${waited} ms`);
    await sse.done;
    // The answer that comes anyway approves nothing.
    await post(g.url, { jsonrpc: '2.0', id: q.id, result: { action: 'accept', content: {} } }, legacyHeaders(session));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(!existsSync(file), 'nothing was written');
  } finally { await g.stop(); }
});

test('the answer keeps the client id and the bytes the server wrote; headers that disagree with the body are refused', async () => {
  const log = newLog();
  const g = await listen({ server: [modernServer], log });
  try {
    // An id no integer counter would give, spelled with a space: it comes back as written.
    const body = `{"jsonrpc":"2.0","id":"client-id \\u00e9","method":"tools/call","params":{"name":"echo","arguments":{},"_meta":${JSON.stringify(meta)}}}`;
    const r = await post(g.url, body, mcpHeaders('tools/call', 'echo'));
    assert.equal(r.status, 200, r.text);
    assert.ok(r.text.startsWith('{"jsonrpc":"2.0","id":"client-id \\u00e9",'), r.text);
    assert.match(r.text, /0\.00011133861541748047/, 'numbers pass byte for byte');

    const before = readLog(log);
    for (const [headers, why] of [
      [mcpHeaders('tools/call', 'other'), /Mcp-Name header "other" does not match/],
      [mcpHeaders('tools/list', 'echo'), /Mcp-Method header "tools\/list" does not match/],
      [{ ...mcpHeaders('tools/call'), 'Mcp-Name': undefined }, /Mcp-Name header is missing/],
      [{ ...mcpHeaders('tools/call', 'echo'), 'MCP-Protocol-Version': '2025-11-25' }, /serves MCP 2026-07-28 over HTTP/],
    ]) {
      for (const k of Object.keys(headers)) if (headers[k] === undefined) delete headers[k];
      const bad = await post(g.url, call(9, 'echo', {}), headers);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.json.id, 9);
      assert.match(bad.json.error.message, why);
      assert.ok([-32020, -32022].includes(bad.json.error.code));
    }
    // Base64-encoded names are decoded before they are compared.
    const enc = await post(g.url, call(10, 'echo', {}), { ...mcpHeaders('tools/call'), 'Mcp-Name': `=?base64?${Buffer.from('echo').toString('base64')}?=` });
    assert.equal(enc.status, 200, enc.text);
    const executed = (s) => s.split('\n').filter((l) => l === 'executed echo').length;
    assert.equal(executed(readLog(log)) - executed(before), 1, 'only the well-formed request reached the server');
  } finally { await g.stop(); }
});

test('what the listener refuses before anything runs: foreign Origin or Host, other paths and methods, not JSON, too big, responses', async () => {
  const log = newLog();
  const g = await listen({ server: [modernServer], log });
  try {
    const echo = call(1, 'echo', { tag: 'x' });
    const origin = await post(g.url, echo, { ...mcpHeaders('tools/call', 'echo'), Origin: 'http://evil.example' });
    assert.equal(origin.status, 403);
    assert.match(origin.json.error.message, /Origin http:\/\/evil\.example is not allowed/);
    const own = await post(g.url, echo, { ...mcpHeaders('tools/call', 'echo'), Origin: `http://localhost:${g.port}` });
    assert.equal(own.status, 200, own.text);
    const rebinding = await rawRequest(g.port, `POST /mcp HTTP/1.1\r\nHost: attacker.example:${g.port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`);
    assert.match(rebinding, /^HTTP\/1\.1 403 /);
    assert.equal((await fetch(g.url.replace('/mcp', '/other'), { method: 'POST', headers: mcpHeaders('tools/call', 'echo'), body: JSON.stringify(echo) })).status, 404);
    const get = await fetch(g.url);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST, GET, DELETE');
    assert.equal((await post(g.url, JSON.stringify(echo), { ...mcpHeaders('tools/call', 'echo'), 'Content-Type': 'text/plain' })).status, 415);
    const big = await post(g.url, JSON.stringify(call(2, 'echo', { tag: 'x'.repeat(5 << 20) })), mcpHeaders('tools/call', 'echo'));
    assert.equal(big.status, 413);
    assert.match(big.json.error.message, /over the listener's limit of 4194304 bytes/);
    const notJson = await post(g.url, '{"jsonrpc":"2.0","id":3,', mcpHeaders('tools/call', 'echo'));
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.code, -32700);
    const response = await post(g.url, { jsonrpc: '2.0', id: 4, result: {} }, mcpHeaders('tools/call', 'echo'));
    assert.equal(response.status, 400);
    const notification = await post(g.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, mcpHeaders('notifications/initialized'));
    assert.equal(notification.status, 202);
    assert.equal(notification.text, '');
    assert.equal(readLog(log).split('\n').filter((l) => l === 'executed echo').length, 1, 'only the request from an allowed Origin ran');
  } finally { await g.stop(); }
});

test('bearer tokens: none or a wrong one is 401, the right one serves; a token file others can read is refused at start', async () => {
  const g = await listen({ args: ['--token-file', tokenFile], server: [testServer] });
  try {
    const discover = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } };
    const none = await post(g.url, discover, mcpHeaders('server/discover'));
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    const wrong = await post(g.url, discover, { ...mcpHeaders('server/discover'), Authorization: `Bearer ${token}x` });
    assert.equal(wrong.status, 401);
    const right = await post(g.url, discover, { ...mcpHeaders('server/discover'), Authorization: `Bearer ${token}` });
    assert.equal(right.status, 200, right.text);
    assert.ok(right.json.result.supportedVersions.includes('2026-07-28'));
  } finally { await g.stop(); }

  const open = path.join(tmp, 'tokens-open');
  writeFileSync(open, `${token}\n`);
  chmodSync(open, 0o644);
  const bad = spawn(TOOLGATE, ['mcp', '--listen', '127.0.0.1:0', '--token-file', open, manifest, '--', process.execPath, testServer], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  bad.stderr.on('data', (d) => { stderr += d; });
  const code = await new Promise((resolve) => bad.on('exit', resolve));
  assert.notEqual(code, 0);
  assert.match(stderr, /can be read or written by others; run chmod 600 on it/);
  // Beyond loopback only with tokens.
  const wide = spawn(TOOLGATE, ['mcp', '--listen', '0.0.0.0:0', manifest, '--', process.execPath, testServer], { stdio: ['ignore', 'ignore', 'pipe'] });
  let wideErr = '';
  wide.stderr.on('data', (d) => { wideErr += d; });
  assert.notEqual(await new Promise((resolve) => wide.on('exit', resolve)), 0);
  assert.match(wideErr, /not a loopback address: serving beyond this machine needs --token-file/);
});

test('closing the HTTP stream cancels the call: the server is told and stops', async () => {
  const log = newLog();
  const g = await listen({ server: [testServer], log });
  try {
    const ac = new AbortController();
    const pending = fetch(g.url, { method: 'POST', headers: mcpHeaders('tools/call', 'sleep'), body: JSON.stringify(call(1, 'sleep', { ms: 20000, id: 'http-cancel' })), signal: ac.signal }).catch((e) => e);
    await until('the call to start', () => readLog(log).includes('started sleep http-cancel'));
    ac.abort();
    await pending;
    await until('the server to hear of the cancellation', () => readLog(log).includes('cancelled sleep http-cancel'));
    // The listener still serves.
    const r = await post(g.url, call(2, 'echo', { tag: 'after' }), mcpHeaders('tools/call', 'echo'));
    assert.equal(r.status, 200, r.text);
  } finally { await g.stop(); }
});

test('progress for a request turns its answer into an SSE stream: the progress first, with the client\'s own token, then the response', async () => {
  const g = await listen({ server: [testServer] });
  // SSE events' data, in order.
  const events = (text) => text.split('\n\n').filter((e) => e.includes('data: '))
    .map((e) => JSON.parse(e.split('\n').find((l) => l.startsWith('data: ')).slice(6)));
  const withToken = (id, token) => ({ ...call(id, 'progress', {}), params: { ...call(id, 'progress', {}).params, _meta: { ...meta, progressToken: token } } });
  try {
    // Two clients choose the same token at once: each gets its own progress.
    const [a, b] = await Promise.all([1, 2].map((id) => post(g.url, withToken(id, 'tok'), mcpHeaders('tools/call', 'progress'))));
    for (const [r, id] of [[a, 1], [b, 2]]) {
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type'), /^text\/event-stream/);
      const got = events(r.text);
      assert.deepEqual(got.slice(0, -1).map((m) => [m.method, m.params.progressToken, m.params.progress]),
        [['notifications/progress', 'tok', 1], ['notifications/progress', 'tok', 2], ['notifications/progress', 'tok', 3]], r.text);
      assert.equal(got.at(-1).id, id);
      assert.equal(got.at(-1).result.content[0].text, 'done');
    }
    // A client that accepts JSON only gets the JSON response, no progress.
    const plain = await post(g.url, withToken(3, 7), { ...mcpHeaders('tools/call', 'progress'), Accept: 'application/json' });
    assert.match(plain.headers.get('content-type'), /^application\/json/);
    assert.equal(plain.json.id, 3);
    assert.equal(plain.json.result.content[0].text, 'done');
    // No token, no stream.
    const none = await post(g.url, call(4, 'progress', {}), mcpHeaders('tools/call', 'progress'));
    assert.match(none.headers.get('content-type'), /^application\/json/);
  } finally { await g.stop(); }
});

modernTest('the SDK 2.x client gets progress over HTTP', async () => {
  const g = await listen({ server: [testServer] });
  try {
    const c = await sdkClient(g.url);
    const seen = [];
    const r = await c.callTool({ name: 'progress', arguments: {} }, { onprogress: (p) => seen.push(p.progress) });
    assert.equal(textOf(r), 'done');
    assert.deepEqual(seen, [1, 2, 3]);
    await c.close();
  } finally { await g.stop(); }
});

test('subscriptions/listen is an SSE stream: acknowledged, then list changes, under the client\'s id', async () => {
  const g = await listen({ server: [modernServer] });
  try {
    const listen = { jsonrpc: '2.0', id: 'sub-1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta } };
    const ac = new AbortController();
    const r = await fetch(g.url, { method: 'POST', headers: mcpHeaders('subscriptions/listen'), body: JSON.stringify(listen), signal: ac.signal });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/event-stream');
    const reader = r.body.getReader();
    let got = '';
    const events = () => got.split('\n\n').filter((e) => e.startsWith('event: message')).map((e) => JSON.parse(e.split('\ndata: ')[1]));
    const pump = (async () => { for (;;) { const { value, done } = await reader.read(); if (done) return; got += Buffer.from(value).toString(); } })().catch(() => {});
    await until('the acknowledgement', () => events().some((e) => e.method === 'notifications/subscriptions/acknowledged'));
    assert.equal(events()[0].params._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
    const m = await post(g.url, call(5, 'mutate', {}), mcpHeaders('tools/call', 'mutate'));
    assert.equal(m.status, 200, m.text);
    await until('the list change', () => events().some((e) => e.method === 'notifications/tools/list_changed'));
    const change = events().find((e) => e.method === 'notifications/tools/list_changed');
    assert.equal(change.params._meta['io.modelcontextprotocol/subscriptionId'], 'sub-1');
    ac.abort();
    await pump;
  } finally { await g.stop(); }
});

test('big answers and big requests at once over --listen all complete', async () => {
  const g = await listen({ server: [testServer] });
  try {
    const big = 'y'.repeat(3 << 20);
    const started = Date.now();
    // Huge answers fill the pipe from the gateway while big requests fill
    // the pipe to it, and calls of a tool that does not exist are answered
    // by the gateway's reading thread itself (it writes while the front
    // end writes to it).
    const results = await Promise.all([
      ...[1, 2, 3, 4].map((id) => post(g.url, call(id, 'huge', { bytes: 3 << 20 }), mcpHeaders('tools/call', 'huge'))),
      ...[5, 6, 7].map((id) => post(g.url, call(id, 'echo', { tag: big.slice(id) }), mcpHeaders('tools/call', 'echo'))),
      ...Array.from({ length: 12 }, (_, i) => post(g.url, call(10 + i, 'nothing-here', { pad: big.slice(0, 1 << 20) }), mcpHeaders('tools/call', 'nothing-here'))),
    ]);
    for (const r of results) assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(results[0].json.result.content[0].text.length, 3 << 20);
    assert.equal(results[4].json.result.structuredContent.tag.length, big.length - 5);
    assert.equal(results[7].json.result.isError, true, results[7].text.slice(0, 300));
    assert.ok(Date.now() - started < 20000);
  } finally { await g.stop(); }
});

test('slow-loris and floods: a request that trickles in is cut off, connections over the limit are closed, the listener serves on', async () => {
  const g = await listen({ args: ['--max-connections', '4', '--http-timeout-ms', '500'], server: [testServer] });
  try {
    const sockets = [];
    const closed = [];
    for (let i = 0; i < 4; ++i) {
      const s = net.connect(g.port, '127.0.0.1');
      sockets.push(s);
      closed.push(new Promise((resolve) => s.on('close', resolve)));
      s.on('error', () => {});
      s.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');  // and nothing more
    }
    await new Promise((r) => setTimeout(r, 100));
    // A fifth connection while four are held: closed at once, nothing served.
    const refused = await rawRequest(g.port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${g.port}\r\nContent-Length: 0\r\n\r\n`, { resetIsEnd: true });
    assert.equal(refused, '');
    // The trickling ones are cut off by the deadline...
    await Promise.all(closed);
    // ...and the listener serves again.
    const r = await post(g.url, call(1, 'echo', { tag: 'after-flood' }), mcpHeaders('tools/call', 'echo'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.structuredContent.tag, 'after-flood');
  } finally { await g.stop(); }
});

test('SIGTERM stops the listener and the server', async () => {
  const g = await listen({ server: [testServer] });
  const { code, signal } = await g.stop();
  assert.equal(signal, null);
  assert.equal(code, 128 + 15);
  assert.match(g.stderr(), /stopped on SIGTERM/);
});

// ---- remote servers: the gateway as an HTTP client --------------------------------------
const httpServers = path.join(here, 'http-servers.mjs');
const denySleep = path.join(tmp, 'deny-sleep.json');
writeFileSync(denySleep, JSON.stringify({
  toolgate: 1,
  plugins: [{ id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
    config: { rules: [{ tools: 'sleep', when: [{ pointer: '/id', regex: 'forbidden' }], verdict: 'deny', reason: 'no forbidden naps' }] } }],
}));

// One of http-servers.mjs: resolves with its port once it listens.
async function remoteServer(mode, args = [], log = newLog()) {
  const child = spawn(process.execPath, [httpServers, mode, ...args], { env: { ...process.env, TG_TEST_LOG: log }, stdio: ['ignore', 'pipe', 'inherit'] });
  running.push(child);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  await until(`the ${mode} HTTP server to listen`, () => /listening \d+/.test(out));
  return { port: Number(out.match(/listening (\d+)/)[1]), log, child, stop: () => child.kill('SIGTERM') };
}
const httpLines = (log) => readLog(log).split('\n').filter((l) => l.startsWith('http '));

// The SDK 1.32 client on stdio in front of `toolgate mcp ... -- URL`.
async function stdioThrough(url, { args = [], manifestFile = manifest, elicit = null } = {}) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const transport = new StdioClientTransport({ command: TOOLGATE, args: ['mcp', manifestFile, ...args, '--', url], stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'toolgate-http-e2e', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

modernTest('HTTP on both sides: the client\'s token stays at the gateway, the gateway\'s own goes upstream; headers mirror the body; a denial never leaves; closing the stream cancels upstream', async () => {
  const upstreamToken = 'upstream-token-fedcba9876543210';
  const upstreamTokenFile = path.join(tmp, 'upstream-token');
  writeFileSync(upstreamTokenFile, `${upstreamToken}\n`);
  chmodSync(upstreamTokenFile, 0o600);
  const remote = await remoteServer('modern', ['--token', upstreamToken]);
  const gateway = await listen({ manifests: [denySleep], args: ['--token-file', tokenFile, '--upstream-token-file', upstreamTokenFile],
    upstream: `http://127.0.0.1:${remote.port}/mcp` });
  const { url } = gateway;
  try {
    const c = await sdkClient(url, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(textOf(await c.callTool({ name: 'add', arguments: { a: 2, b: 3 } })), '5');
    const denied = await c.callTool({ name: 'sleep', arguments: { ms: 1, id: 'forbidden' } });
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /no forbidden naps/);
    const lines = httpLines(remote.log);
    assert.ok(lines.some((l) => l.startsWith('http POST tools/call add ')), lines.join('\n'));
    assert.ok(lines.every((l) => l.includes(`auth=Bearer ${upstreamToken}`)), 'every upstream request carries the gateway\'s token');
    assert.ok(lines.every((l) => !l.includes(token)), 'the client\'s token never goes upstream');
    assert.ok(lines.every((l) => l.includes('version=2026-07-28')));
    assert.doesNotMatch(readLog(remote.log), /started sleep forbidden/);
    await c.close();

    const ac = new AbortController();
    const pending = fetch(url, { method: 'POST', signal: ac.signal,
      headers: { ...mcpHeaders('tools/call', 'sleep'), Authorization: `Bearer ${token}` },
      body: JSON.stringify(call(1, 'sleep', { ms: 20000, id: 'long' })) }).catch((e) => e);
    await until('the remote call to start', () => readLog(remote.log).includes('started sleep long'));
    ac.abort();
    await pending;
    await until('the upstream stream to close', () => readLog(remote.log).includes('stream closed sleep'));
  } finally {
    await gateway.stop();
    remote.stop();
  }
});

test('HTTP upstream: calls in a row share one kept-open connection; one the server dropped while idle is not used again', async () => {
  const remote = await remoteServer('modern', ['--drop-idle-ms', '300']);
  const c = await stdioThrough(`http://127.0.0.1:${remote.port}/mcp`);
  try {
    for (const [a, b] of [[1, 2], [3, 4], [5, 6]])
      assert.equal(textOf(await c.client.callTool({ name: 'add', arguments: { a, b } })), String(a + b));
    await new Promise((resolve) => setTimeout(resolve, 900));
    // The server closed it after 300 ms while its Keep-Alive header said 5 s.
    assert.equal(textOf(await c.client.callTool({ name: 'add', arguments: { a: 7, b: 8 } })), '15');
  } finally { await c.close(); }
  const conns = httpLines(remote.log).filter((l) => l.startsWith('http POST tools/call add')).map((l) => l.match(/conn=(\d+)/)[1]);
  assert.equal(conns.length, 4, conns.join(' '));
  assert.equal(new Set(conns.slice(0, 3)).size, 1, `three calls in a row, one connection: ${conns.join(' ')}`);
  assert.notEqual(conns[3], conns[2], 'the dropped connection is not used again');
});

test('HTTP upstream: a method with a CR LF from a client is not sent (it would add headers upstream)', async () => {
  const { ResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const remote = await remoteServer('modern');
  const c = await stdioThrough(`http://127.0.0.1:${remote.port}/mcp`);
  try {
    await assert.rejects(c.client.request({ method: 'ping\r\nX-Injected: yes', params: {} }, ResultSchema),
      /Mcp-Method has a character an HTTP header cannot carry/);
    assert.equal(textOf(await c.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })), '2');
  } finally { await c.close(); }
  assert.ok(httpLines(remote.log).every((l) => !l.startsWith('http POST ping')), readLog(remote.log));
});

test('trace context: a traceparent header or _meta member is in the call\'s event and audit record and goes upstream as both', async () => {
  const remote = await remoteServer('modern');
  const events = path.join(tmp, 'trace-events.jsonl');
  const audit = path.join(tmp, 'trace-audit.jsonl');
  const auditManifest = path.join(tmp, 'trace-audit.json');
  writeFileSync(auditManifest, JSON.stringify({ toolgate: 1, plugins: [
    { id: 'toolgate.audit', path: path.join(PLUGINS, 'toolgate_audit.so'), config: { path: audit } }] }));
  const gateway = await listen({ manifests: [auditManifest], args: ['--events', events], upstream: `http://127.0.0.1:${remote.port}/mcp` });
  const { url } = gateway;
  try {
    const fromHeader = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const fromMeta = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    // As HTTP headers (W3C Trace Context): put into the body's _meta.
    let r = await post(url, call(1, 'add', { a: 1, b: 2 }), { ...mcpHeaders('tools/call', 'add'), traceparent: fromHeader, tracestate: 'vendor=abc' });
    assert.equal(r.status, 200, r.text);
    // In _meta: the body's own wins over a header.
    const inMeta = call(2, 'add', { a: 3, b: 4 });
    inMeta.params._meta = { ...meta, traceparent: fromMeta };
    r = await post(url, inMeta, { ...mcpHeaders('tools/call', 'add'), traceparent: fromHeader });
    assert.equal(r.status, 200, r.text);
    // Not valid: carried nowhere (a trace restarts; the call is served).
    r = await post(url, call(3, 'add', { a: 5, b: 6 }), { ...mcpHeaders('tools/call', 'add'), traceparent: '00-not-a-trace' });
    assert.equal(r.status, 200, r.text);

    const upstream = httpLines(remote.log).filter((l) => l.startsWith('http POST tools/call add'));
    assert.equal(upstream.length, 3, upstream.join('\n'));
    assert.match(upstream[0], new RegExp(`trace=${fromHeader} state=vendor=abc meta-trace=${fromHeader}`));
    assert.match(upstream[1], new RegExp(`trace=${fromMeta} state=none meta-trace=${fromMeta}`));
    assert.match(upstream[2], /trace=none state=none meta-trace=none/);

    await until('three calls in the event log', () => existsSync(events) && readFileSync(events, 'utf8').split('\n').filter((l) => l.includes('"tool/call"')).length === 3);
    const calls = readFileSync(events, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'tool/call');
    assert.deepEqual(calls.map((e) => [e.data.traceparent, e.data.tracestate]),
      [[fromHeader, 'vendor=abc'], [fromMeta, undefined], [undefined, undefined]]);
    await until('three audit records', () => existsSync(audit) && readFileSync(audit, 'utf8').trim().split('\n').length >= 3);
    const records = readFileSync(audit, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((rec) => rec.call);
    assert.deepEqual(records.map((rec) => rec.call.traceparent), [fromHeader, fromMeta, undefined]);
  } finally {
    await gateway.stop();
    remote.stop();
  }
});

modernTest('--servers with a server over HTTP and one on stdio, behind --listen: the SDK 2.x client reaches both by prefix', async () => {
  const upstreamToken = 'group-upstream-token-0123456789';
  const tokenOfGroup = path.join(tmp, 'group-upstream-token');
  writeFileSync(tokenOfGroup, `${upstreamToken}\n`);
  chmodSync(tokenOfGroup, 0o600);
  const remote = await remoteServer('legacy', ['--token', upstreamToken]);
  const serversFile = path.join(tmp, 'http.servers.json');
  writeFileSync(serversFile, JSON.stringify({ toolgate_servers: 1, separator: '_', servers: [
    { name: 'remote', url: `http://127.0.0.1:${remote.port}/mcp`, token_file: 'group-upstream-token' },
    { name: 'local', command: [process.execPath, testServer] },
  ] }));
  const child = spawn(TOOLGATE, ['mcp', '--listen', '127.0.0.1:0', manifest, '--servers', serversFile],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  running.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  await until(`the listener (stderr: ${stderr})`, () => /at http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr));
  const url = stderr.match(/at (http:\/\/127\.0\.0\.1:\d+\/mcp)/)[1];
  try {
    const c = await sdkClient(url);
    const { tools } = await c.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('remote_add') && names.includes('local_echo'), names.join());
    assert.ok(names.indexOf('remote_add') < names.indexOf('local_echo'), 'the file\'s order');
    const sum = await c.callTool({ name: 'remote_add', arguments: { a: 2, b: 3 } });
    assert.equal(textOf(sum), '5', JSON.stringify(sum));
    assert.equal(textOf(await c.callTool({ name: 'local_echo', arguments: { tag: 'here' } })), 'echo here');
    assert.match(readLog(remote.log), /executed add 2 3/, 'the remote server got the call under its own name');
    await c.close();
  } finally {
    child.kill('SIGTERM');
    remote.stop();
  }
});

modernTest('a 2026-07-28 client over --listen in front of a 2025-11-25 server over HTTP: calls go in the server\'s session', async () => {
  // The client's 2026-07-28 envelope travels in the body's _meta; the
  // server's session, not the envelope, decides how the request is sent.
  const remote = await remoteServer('legacy');
  const g = await listen({ upstream: `http://127.0.0.1:${remote.port}/mcp` });
  try {
    const c = await sdkClient(g.url);
    const sum = await c.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    assert.equal(textOf(sum), '42', JSON.stringify(sum));
    await c.close();
  } finally {
    await g.stop();
    remote.stop();
  }
});

test('HTTP upstream (2026-07-28): arguments a tool mirrors into Mcp-Param-* headers are sent as the server asks, from the body actually sent', async () => {
  const remote = await remoteServer('modern');
  const rewrite = path.join(tmp, 'rewrite-account.json');
  writeFileSync(rewrite, JSON.stringify({ toolgate: 1, plugins: [{ id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
    config: { rules: [{ tools: 'transfer', when: [{ pointer: '/account', equals: 'alias' }], set: { '/account': 'real-account' } }] } }] }));
  const c = await stdioThrough(`http://127.0.0.1:${remote.port}/mcp`, { manifestFile: rewrite });
  try {
    const r = await c.client.callTool({ name: 'transfer', arguments: { account: 'alice', cents: 250, urgent: true, note: 'rent' } });
    assert.equal(textOf(r), 'moved 250 from alice', JSON.stringify(r));
    // Not visible ASCII: the Base64 sentinel.
    const accented = await c.client.callTool({ name: 'transfer', arguments: { account: 'Zoë', cents: 7 } });
    assert.equal(textOf(accented), 'moved 7 from Zoë', JSON.stringify(accented));
    // Rewritten by a hook: the header follows the body that is sent.
    const rewritten = await c.client.callTool({ name: 'transfer', arguments: { account: 'alias', cents: 1 } });
    assert.equal(textOf(rewritten), 'moved 1 from real-account', JSON.stringify(rewritten));
    const lines = httpLines(remote.log).filter((l) => l.startsWith('http POST tools/call transfer'));
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.match(lines[0], /params=mcp-param-account=alice,mcp-param-cents=250,mcp-param-urgent=true /);
    assert.match(lines[1], new RegExp(`params=mcp-param-account==\\?base64\\?${Buffer.from('Zoë').toString('base64').replace(/[+/=]/g, (ch) => `\\${ch}`)}\\?=,mcp-param-cents=7 `));
    assert.match(lines[2], /params=mcp-param-account=real-account,mcp-param-cents=1 /);
  } finally {
    await c.close();
    remote.stop();
  }
});

// The reference server-everything in its Streamable HTTP mode (its own
// launcher binds every interface; loopback-only.mjs pins it to 127.0.0.1).
const everything = path.join(here, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
async function startEverything() {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', path.join(here, 'loopback-only.mjs'), everything, 'streamableHttp'],
    { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  await until(`server-everything to listen (${out})`, () => /listening on port/.test(out));
  const posts = () => out.split('\n').filter((l) => l.includes('Received MCP POST request')).length;
  return { url: `http://127.0.0.1:${port}/mcp`, posts, stop: () => child.kill('SIGTERM') };
}
const denyEcho = path.join(tmp, 'deny-echo.json');
writeFileSync(denyEcho, JSON.stringify({ toolgate: 1, plugins: [{ id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
  config: { rules: [{ tools: 'echo', when: [{ pointer: '/message', regex: 'forbidden' }], verdict: 'deny', reason: 'no forbidden echoes' }] } }] }));

test('server-everything over HTTP behind the gateway, a 2025-11-25 client on stdio: its tools, a sum, a denial that never reaches it', async () => {
  const se = await startEverything();
  const c = await stdioThrough(se.url, { manifestFile: denyEcho });
  try {
    const { tools } = await c.client.listTools();
    assert.ok(['echo', 'get-sum', 'get-tiny-image'].every((n) => tools.some((t) => t.name === n)), tools.map((t) => t.name).join());
    assert.equal(textOf(await c.client.callTool({ name: 'echo', arguments: { message: 'hello' } })), 'Echo: hello');
    assert.match(textOf(await c.client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })), /42/);
    const before = se.posts();
    const denied = await c.client.callTool({ name: 'echo', arguments: { message: 'a forbidden echo' } });
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /no forbidden echoes/);
    assert.equal(se.posts(), before, 'the denied call was not sent to the server');
  } finally {
    await c.close();
    se.stop();
  }
});

modernTest('server-everything over HTTP behind --listen, a 2026-07-28 client (SDK 2.x): its tools and an image pass through', async () => {
  const se = await startEverything();
  const g = await listen({ manifests: [denyEcho], upstream: se.url });
  try {
    const c = await sdkClient(g.url);
    const { tools } = await c.listTools();
    assert.ok(tools.some((t) => t.name === 'get-sum'));
    assert.match(textOf(await c.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })), /3/);
    const image = await c.callTool({ name: 'get-tiny-image', arguments: {} });
    assert.ok(image.content.some((b) => b.type === 'image' && b.mimeType === 'image/png' && b.data.length > 0), JSON.stringify(image).slice(0, 300));
    const denied = await c.callTool({ name: 'echo', arguments: { message: 'forbidden' } });
    assert.equal(denied.isError, true);
    await c.close();
  } finally {
    await g.stop();
    se.stop();
  }
});

test('server-everything over HTTP behind --listen, a 2025-11-25 client (SDK 1.32) in a session: its tools, a sum, an image, a denial', async () => {
  const se = await startEverything();
  const g = await listen({ manifests: [denyEcho], upstream: se.url });
  try {
    const { client: c, transport } = await legacyClient(g.url);
    assert.ok(transport.sessionId);
    const { tools } = await c.listTools();
    assert.ok(tools.some((t) => t.name === 'get-sum'));
    assert.match(textOf(await c.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })), /3/);
    const image = await c.callTool({ name: 'get-tiny-image', arguments: {} });
    assert.ok(image.content.some((b) => b.type === 'image' && b.mimeType === 'image/png' && b.data.length > 0), JSON.stringify(image).slice(0, 300));
    const denied = await c.callTool({ name: 'echo', arguments: { message: 'forbidden' } });
    assert.equal(denied.isError, true);
    await transport.terminateSession();
    await c.close();
  } finally {
    await g.stop();
    se.stop();
  }
});

test('a 2025-11-25 server over HTTP: one session throughout, its request to the client answered, DELETE at the end', async () => {
  const remote = await remoteServer('legacy');
  const asked = [];
  const c = await stdioThrough(`http://127.0.0.1:${remote.port}/mcp`, { elicit: async (req) => { asked.push(req.params.message); return { action: 'accept', content: { ok: true } }; } });
  try {
    assert.equal(textOf(await c.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })), '42');
    assert.equal(textOf(await c.client.callTool({ name: 'confirm', arguments: {} })), 'answer accept');
    assert.deepEqual(asked, ['Go ahead?']);
  } finally { await c.close(); }
  await until('the session to be deleted', () => readLog(remote.log).includes('session closed'));
  const lines = httpLines(remote.log);
  const init = lines.findIndex((l) => l.startsWith('http POST initialize'));
  assert.ok(init >= 0, lines.join('\n'));
  assert.ok(lines.slice(init + 1).every((l) => l.includes('session=yes')), lines.join('\n'));
  assert.ok(lines.slice(init + 1).every((l) => l.includes('version=2025-11-25')), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('http GET')), 'the session\'s GET stream was opened');
  assert.ok(lines.some((l) => l.startsWith('http DELETE')), 'the session was deleted');
  remote.stop();
});

test('HTTPS upstream: served with the test\'s own CA; without it, refused for its certificate', async () => {
  const key = path.join(tmp, 'server.key');
  const cert = path.join(tmp, 'server.crt');
  const made = spawn('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  assert.equal(await new Promise((resolve) => made.on('exit', resolve)), 0, 'openssl made the certificate');
  const remote = await remoteServer('modern', ['--tls', cert, key]);
  try {
    const url = `https://127.0.0.1:${remote.port}/mcp`;
    const c = await stdioThrough(url, { args: ['--upstream-ca', cert] });
    try {
      assert.equal(textOf(await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })), '3');
    } finally { await c.close(); }
    const untrusted = spawn(TOOLGATE, ['mcp', manifest, '--', url], { stdio: ['pipe', 'pipe', 'pipe'] });
    running.push(untrusted);
    let out = '';
    let err = '';
    untrusted.stdout.on('data', (d) => { out += d; });
    untrusted.stderr.on('data', (d) => { err += d; });
    untrusted.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) + '\n');
    await until('the refusal', () => out.includes('"id":1'));
    const answer = JSON.parse(out.split('\n')[0]);
    assert.ok(answer.error, out);
    assert.match(answer.error.message, /certificate verify failed/);
    assert.ok(!httpLines(remote.log).some((l) => l.includes('initialize')), 'nothing reached the server');
    untrusted.kill('SIGTERM');
  } finally { remote.stop(); }
});
