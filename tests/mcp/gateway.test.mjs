// End-to-end tests of `toolgate mcp`: the official MCP TypeScript SDK client
// drives the gateway in front of @modelcontextprotocol/server-filesystem and
// in front of a small test server (test-server.mjs), with the production
// policy, guard-paths and timeout plugins in the manifest.
//
// Environment: TOOLGATE (the toolgate binary), TOOLGATE_PLUGIN_DIR (the
// built plugin library), TOOLGATE_TEST_PLUGIN_DIR (the built test plugins).  Run from a folder where `npm ci` has installed
// package-lock.json (ctest's mcp.npm_ci fixture does that).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from './net-support.mjs';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TOOLGATE = process.env.TOOLGATE;
const PLUGINS = process.env.TOOLGATE_PLUGIN_DIR;
assert.ok(TOOLGATE && existsSync(TOOLGATE), `TOOLGATE must name the toolgate binary (got ${TOOLGATE})`);
assert.ok(PLUGINS && existsSync(path.join(PLUGINS, 'toolgate_guard-paths.so')),
  `TOOLGATE_PLUGIN_DIR must hold the built plugins (got ${PLUGINS})`);
const fsServer = path.join(here, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const testServer = path.join(here, 'test-server.mjs');
const rawServer = path.join(here, 'raw-server.mjs');  // dispatches on "method" alone
const modernServer = path.join(here, 'modern-server.mjs');  // speaks MCP 2026-07-28 only
const sdk2Server = path.join(here, 'sdk2-server.mjs');  // the SDK 2.x server (Node.js >= 20)

const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-e2e-')));
const root = path.join(tmp, 'root');        // the only folder reads and writes may touch
const outside = path.join(tmp, 'outside');  // the server itself could reach it if allowed
mkdirSync(root);
mkdirSync(outside);
writeFileSync(path.join(root, 'hello.txt'), 'hello from toolgate\n');
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
    { id: 'toolgate.redact', path: path.join(PLUGINS, 'toolgate_redact.so'),
      config: { tools: 'read_text_file' } },
    { id: 'toolgate.timeout', path: path.join(PLUGINS, 'toolgate_timeout.so'),
      config: { default_ms: 60000, tools: [{ tools: 'sleep_limited', ms: 300 }] } },
  ],
}, null, 2));

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

// An SDK client connected through `toolgate mcp` to the chosen server.
async function connect({ server = 'fs', elicit = null, log = '', gatewayArgs = [], manifestFile = manifest, roots = null } = {}) {
  const serverArgs = server === 'fs' ? [fsServer, root] : server === 'sdk2' ? [sdk2Server] : [testServer];
  const transport = new StdioClientTransport({
    command: TOOLGATE,
    args: ['mcp', manifestFile, ...gatewayArgs, '--', process.execPath, ...serverArgs],
    env: { ...process.env, TG_TEST_LOG: log },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const capabilities = {};
  if (elicit) capabilities.elicitation = {};
  if (roots) capabilities.roots = { listChanged: true };
  const client = new Client({ name: 'toolgate-e2e', version: '1.0.0' }, { capabilities });
  if (elicit) client.setRequestHandler(ElicitRequestSchema, elicit);
  // roots(): the client's current roots, as URIs.
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots().map((uri) => ({ uri })) }));
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

const errorOf = (r) => r._meta?.['toolgate/error'];
const textOf = (r) => r.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n');

test('tools/list passes through and the tools keep their annotations', async () => {
  const c = await connect();
  try {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['read_text_file', 'write_file', 'list_directory']) assert.ok(names.includes(n), n);
    const write = tools.find((t) => t.name === 'write_file');
    assert.equal(write.annotations.destructiveHint, true);
    assert.equal(write.inputSchema.type, 'object');
  } finally { await c.close(); }
});

test('an allowed read returns the file', async () => {
  const c = await connect();
  try {
    const r = await c.client.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.match(textOf(r), /hello from toolgate/);
  } finally { await c.close(); }
});

test("redact's note to the model arrives with the call's result", async () => {
  // A GitHub-token-shaped string, built so this file does not look like one.
  writeFileSync(path.join(root, 'creds.txt'), 'token=' + 'ghp_' + 'aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789' + '\n');
  const c = await connect();
  try {
    const r = await c.client.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'creds.txt') } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.doesNotMatch(textOf(r), /ghp_/);
    assert.match(r.content[0].text, /\[REDACTED:/);
    const notes = r._meta?.['toolgate/additional_contexts'];
    assert.equal(notes?.length, 1, JSON.stringify(r));
    assert.match(notes[0], /redacted/);
    assert.equal(r.content.at(-1).text, notes[0]);
  } finally { await c.close(); }
});

test('a write outside the allowed folder is denied by guard-paths and nothing is written', async () => {
  const c = await connect();
  try {
    const target = path.join(outside, 'evil.txt');
    const r = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'pwned' } });
    assert.equal(r.isError, true, JSON.stringify(r));
    const e = errorOf(r);
    assert.equal(e.code, 'denied');
    assert.equal(e.stage, 'guard');
    assert.equal(e.source, 'toolgate.guard-paths/paths');
    assert.match(textOf(r), /evil\.txt|outside|root/);
    assert.equal(existsSync(target), false, 'the denied write must not reach the disk');
    // A write inside the folder goes through, so the denial above was the guard's.
    const ok = path.join(root, 'fine.txt');
    const w = await c.client.callTool({ name: 'write_file', arguments: { path: ok, content: 'fine' } });
    assert.notEqual(w.isError, true, JSON.stringify(w));
    assert.equal(readFileSync(ok, 'utf8'), 'fine');
  } finally { await c.close(); }
});

test('an ask accepted through elicitation runs the call; the user saw the reason and the exact arguments', async () => {
  const seen = [];
  const c = await connect({ elicit: async (req) => { seen.push(req.params); return { action: 'accept', content: {} }; } });
  try {
    const target = path.join(root, 'ask-me-yes.txt');
    const r = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'approved' } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.equal(readFileSync(target, 'utf8'), 'approved');
    assert.equal(seen.length, 1);
    assert.match(seen[0].message, /writing a file named ask-me needs approval/);
    assert.ok(seen[0].message.includes(JSON.stringify(target)), seen[0].message);
    assert.match(seen[0].message, /"content":"approved"/);
  } finally { await c.close(); }
});

test('an ask declined through elicitation is approval_rejected and nothing is written', async () => {
  const c = await connect({ elicit: async () => ({ action: 'decline' }) });
  try {
    const target = path.join(root, 'ask-me-no.txt');
    const r = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(r.isError, true);
    assert.equal(errorOf(r).code, 'approval_rejected');
    assert.equal(errorOf(r).stage, 'approval');
    assert.equal(existsSync(target), false);
    const cancel = await connect({ elicit: async () => ({ action: 'cancel' }) });
    try {
      const r2 = await cancel.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
      assert.equal(errorOf(r2).code, 'approval_cancelled');
      assert.equal(existsSync(target), false);
    } finally { await cancel.close(); }
  } finally { await c.close(); }
});

test('a client without the elicitation capability gets approval_unavailable', async () => {
  const c = await connect();
  try {
    const target = path.join(root, 'ask-me-unavailable.txt');
    const r = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(r.isError, true);
    assert.equal(errorOf(r).code, 'approval_unavailable');
    assert.equal(existsSync(target), false);
  } finally { await c.close(); }
});

test('cancelling a slow call reaches the server, and the gateway goes on serving', async () => {
  const log = newLog();
  const c = await connect({ server: 'test', log });
  try {
    const ac = new AbortController();
    const start = Date.now();
    const pending = c.client.callTool({ name: 'sleep', arguments: { ms: 30000, id: 'c1' } }, undefined, { signal: ac.signal });
    await until('the server to start the call', () => readLog(log).includes('started sleep c1'));
    ac.abort('the test cancels');
    await assert.rejects(pending);
    await until('the server to see the cancellation', () => readLog(log).includes('cancelled sleep c1'));
    assert.ok(Date.now() - start < 10000);
    const r = await c.client.callTool({ name: 'echo', arguments: { tag: 'after' } });
    assert.deepEqual(r.structuredContent, { tag: 'after' });
  } finally { await c.close(); }
});

test("a wrapper's deadline cancels the server's call and ends as timeout", async () => {
  const log = newLog();
  const c = await connect({ server: 'test', log });
  try {
    const start = Date.now();
    const r = await c.client.callTool({ name: 'sleep_limited', arguments: { ms: 30000, id: 't1' } });
    assert.equal(r.isError, true, JSON.stringify(r));
    assert.equal(errorOf(r).code, 'timeout');
    assert.ok(Date.now() - start < 10000, 'the 300 ms deadline ended the call');
    await until('the server to see the cancellation', () => readLog(log).includes('cancelled sleep_limited t1'));
  } finally { await c.close(); }
});

test('many concurrent calls each get their own result', async () => {
  const c = await connect({ server: 'test' });
  try {
    const tags = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const results = await Promise.all(tags.map((tag, i) =>
      c.client.callTool({ name: 'echo', arguments: { tag, delay_ms: (i * 37) % 60 } })));
    results.forEach((r, i) => {
      assert.notEqual(r.isError, true);
      assert.deepEqual(r.structuredContent, { tag: tags[i] });
      assert.equal(textOf(r), `echo ${tags[i]}`);
    });
  } finally { await c.close(); }
});

// `count` 1.5-second calls in flight, then a quick one: it must answer at
// once, and the slow ones must end together (within 4 s of the first).
async function slowCallsThenQuick(c, count, prefix) {
  const t0 = Date.now();
  const slow = Array.from({ length: count }, (_, i) =>
    c.client.callTool({ name: 'sleep', arguments: { ms: 1500, id: `${prefix}${i}` } }));
  await new Promise((r) => setTimeout(r, 300));  // all of them in flight
  const q0 = Date.now();
  const quick = await c.client.callTool({ name: 'echo', arguments: { tag: 'quick' } });
  const quickMs = Date.now() - q0;
  assert.equal(textOf(quick), 'echo quick');
  assert.ok(quickMs < 1000, `the quick call took ${quickMs} ms`);
  const results = await Promise.all(slow);
  results.forEach((r) => assert.equal(textOf(r), 'slept 1500 ms'));
  const total = Date.now() - t0;
  assert.ok(total < 4000, `${count} parallel 1.5 s calls took ${total} ms`);
}

test('no head-of-line blocking: a quick call behind 150 slow ones answers at once, and 150 1.5-second calls end together', async () => {
  const c = await connect({ server: 'test' });
  // With a fixed pool of 64 threads the quick call waited for a slow one
  // to finish (over a second), and 150 calls took three rounds (4.5 s).
  try { await slowCallsThenQuick(c, 150, 's'); } finally { await c.close(); }
});

test('waiting for the server holds no thread: with 2 worker threads, 60 parallel 1.5-second calls end together', async () => {
  // The default manifest: policy, guard-paths, redact, and the timeout
  // wrapper, which is in two halves -- its deadline is watched by the
  // gateway's timer, not by a thread per call.  (Before halves, a call
  // under it waited on its thread: 30 rounds of 1.5 s here.)
  const c = await connect({ server: 'test', gatewayArgs: ['--max-calls-in-flight', '2'] });
  try { await slowCallsThenQuick(c, 60, 'w'); } finally { await c.close(); }
});

test('the same with no wrapper at all', async () => {
  const c = await connect({ server: 'test', gatewayArgs: ['--max-calls-in-flight', '2'],
    manifestFile: testManifest('no-wrappers', []) });
  try { await slowCallsThenQuick(c, 60, 'n'); } finally { await c.close(); }
});

test('progress notifications, tool errors and server-initiated elicitation pass through', async () => {
  const asked = [];
  const c = await connect({ server: 'test', elicit: async (req) => { asked.push(req.params.message); return { action: 'accept', content: { ok: true } }; } });
  try {
    const progress = [];
    const r = await c.client.callTool({ name: 'progress', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(textOf(r), 'done');
    // The SDK client drops progress that it parses after the response (it
    // reads them in one chunk under load), so only "some, in order" is
    // certain here; the raw test below checks all three precede the result.
    assert.ok(progress.length >= 1, 'progress reached the client');
    assert.deepEqual(progress, [1, 2, 3].slice(0, progress.length));

    const f = await c.client.callTool({ name: 'fail', arguments: {} });
    assert.equal(f.isError, true);
    assert.equal(errorOf(f).code, 'tool_error');
    assert.match(textOf(f), /failed on purpose/);

    const e = await c.client.callTool({ name: 'confirm', arguments: {} });
    assert.equal(textOf(e), 'client said accept');
    assert.deepEqual(asked, ['the test server asks']);
  } finally { await c.close(); }
});

// ---- raw protocol: what the SDK hides -------------------------------------------------

// Whatever a failed test left running is killed at the end, so one failure
// cannot keep the suite alive until ctest's timeout.
const leftovers = { children: [], pids: [] };
after(() => {
  for (const c of leftovers.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of leftovers.pids) {
    let cmdline = '';
    try { cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { continue; }
    // Only our stubborn server and its child: a pid may have been reused.
    if (/raw-server|setInterval/.test(cmdline)) try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
});

function rawGateway(extraArgs = [], log = '', { manifestFile = manifest, server = testServer, env = {}, serversFile = null } = {}) {
  const target = serversFile ? ['--servers', serversFile] : ['--', process.execPath, server];
  const child = spawn(TOOLGATE, ['mcp', manifestFile, ...extraArgs, ...target],
    { env: { ...process.env, TG_TEST_LOG: log, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  leftovers.children.push(child);
  const messages = [];
  const waiters = [];
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line);  // stdout must carry protocol only
    if (m && typeof m === 'object') Object.defineProperty(m, 'raw', { value: line, enumerable: false });
    messages.push(m);
    waiters.splice(0).forEach((w) => w());
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child, messages, exited, stderr: () => stderr,
    send: (obj) => child.stdin.write((typeof obj === 'string' ? obj : JSON.stringify(obj)) + '\n'),
    async next(pred, ms = 10000) {
      const end = Date.now() + ms;
      while (true) {
        const i = messages.findIndex(pred);
        if (i >= 0) return messages.splice(i, 1)[0];
        if (Date.now() > end) assert.fail(`no matching message; got ${JSON.stringify(messages)}; stderr ${stderr}`);
        await new Promise((r) => { waiters.push(r); setTimeout(r, 50); });
      }
    },
  };
}

const init = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

// A raw gateway past the handshake: initialize answered, initialized sent.
async function rawSession(extraArgs, log, options, initMessage = init) {
  const g = rawGateway(extraArgs, log, options);
  g.send(initMessage);
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return g;
}

test('raw: malformed and oversize input get JSON-RPC errors; a cancelled call gets no response; closing stdin exits 0', async () => {
  const log = newLog();
  const g = rawGateway(['--max-message-bytes', '8192'], log);
  g.send('{this is not json');
  const parse = await g.next((m) => m.error?.code === -32700);
  assert.equal(parse.id, null);
  g.send(JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping', params: { pad: 'x'.repeat(20000) } }));
  const big = await g.next((m) => m.error?.code === -32700);
  assert.match(big.error.message, /too large/);
  g.send('[{"jsonrpc":"2.0","id":3,"method":"ping"}]');
  assert.equal((await g.next((m) => m.error?.code === -32600)).id, null);
  // Nesting past 256 levels (under the size limit) is refused like bad JSON.
  g.send('{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":' + '['.repeat(300) + ']'.repeat(300) + '}}');
  const deep = await g.next((m) => m.error?.code === -32700);
  assert.equal(deep.id, null);

  g.send(init);
  const initialized = await g.next((m) => m.id === 1);
  assert.ok(['2025-06-18', '2025-11-25'].includes(initialized.result.protocolVersion));
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // tools/call without a tools/list first: the gateway lists the tools itself.
  g.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'sleep', arguments: { ms: 30000, id: 'raw1' } } });
  await until('the server to start the call', () => readLog(log).includes('started sleep raw1'));
  g.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow', reason: 'test' } });
  await until('the server to see the cancellation', () => readLog(log).includes('cancelled sleep raw1'));
  // Progress for the client's token passes through, all of it before the result.
  g.send({ jsonrpc: '2.0', id: 'p', method: 'tools/call', params: { name: 'progress', arguments: {}, _meta: { progressToken: 'tok' } } });
  const done = await g.next((m) => m.id === 'p');
  assert.equal(done.result.content[0].text, 'done');
  const progress = g.messages.filter((m) => m.method === 'notifications/progress');
  assert.deepEqual(progress.map((m) => [m.params.progressToken, m.params.progress]), [['tok', 1], ['tok', 2], ['tok', 3]]);
  // Same id as a request the server may have sent us: ids never collide.
  g.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  assert.deepEqual((await g.next((m) => m.id === 1)).result, {});
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(g.messages.find((m) => m.id === 'slow'), undefined, 'a cancelled request gets no response');
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
});

test("raw: a server answer over the size limit fails its call at once, and the gateway goes on serving", async () => {
  const g = rawGateway(['--max-message-bytes', '8192']);
  g.send(init);
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'huge', arguments: { bytes: 20000 } } });
  // Well before any deadline (the default is 60 s): the answer itself ends it.
  const r = await g.next((m) => m.id === 2, 5000);
  assert.equal(r.result.isError, true, JSON.stringify(r));
  assert.equal(r.result._meta['toolgate/error'].code, 'tool_error');
  assert.match(textOf(r.result), /answer was \d+ bytes or more, over the 8192-byte limit/);
  g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'huge', arguments: { bytes: 10 } } });
  const ok = await g.next((m) => m.id === 3);
  assert.notEqual(ok.result.isError, true, JSON.stringify(ok));
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
});

test('raw: the server crashing mid-call fails every pending call and the gateway exits 1', async () => {
  const log = newLog();
  const g = rawGateway([], log);
  g.send(init);
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await g.next((m) => m.id === 2);
  g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 30000, id: 'p' } } });
  await until('the server to start the call', () => readLog(log).includes('started sleep p'));
  g.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'crash', arguments: {} } });
  for (const id of [3, 4]) {
    const r = await g.next((m) => m.id === id);
    assert.equal(r.result.isError, true, JSON.stringify(r));
    assert.match(r.result.content[0].text, /MCP server exited with status 3/);
    assert.equal(r.result._meta['toolgate/error'].code, 'tool_error');
  }
  const { code } = await g.exited;
  assert.equal(code, 1);
  assert.match(g.stderr(), /toolgate mcp: error: the MCP server exited with status 3/);
});

// ---- Code Mode: run_code in front of server-filesystem ---------------------------------
test('Code Mode: a script reads through the pipeline, a guarded write from code is denied and nothing is written', async () => {
  const c = await connect({ gatewayArgs: ['--code-mode'] });
  try {
    const { tools } = await c.client.listTools();
    const run = tools.find((t) => t.name === 'run_code');
    assert.ok(run, JSON.stringify(tools.map((t) => t.name)));
    assert.match(run.description, /read_text_file\(args/);
    assert.ok(tools.some((t) => t.name === 'write_file'), 'the server tools are offered alongside');
    const target = path.join(outside, 'from-code.txt');
    const code = `
      const hello = await tools.read_text_file({path: ${JSON.stringify(path.join(root, 'hello.txt'))}});
      let denied;
      try { await tools.write_file({path: ${JSON.stringify(target)}, content: 'pwned'}); }
      catch (e) { denied = e.name + ':' + e.code + ':' + e.source; }
      return {hello, denied};`;
    const r = await c.client.callTool({ name: 'run_code', arguments: { code } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.denied, 'ToolDenied:denied:toolgate.guard-paths/paths');
    assert.match(JSON.stringify(r.structuredContent.hello), /hello from toolgate/);
    assert.match(textOf(r), /toolgate refused 1 tool call/);
    assert.equal(existsSync(target), false, 'the denied write from code created the file');
  } finally { await c.close(); }
});

test('Code Mode only: run_code is the only tool, and the server tools are refused when called directly', async () => {
  const c = await connect({ gatewayArgs: ['--code-mode-only'] });
  try {
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['run_code']);
    await assert.rejects(
      c.client.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } }),
      /serves run_code only/);
    const r = await c.client.callTool({ name: 'run_code', arguments: {
      code: `return (await tools.list_directory({path: ${JSON.stringify(root)}}));` } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.match(JSON.stringify(r.structuredContent), /hello\.txt/);
  } finally { await c.close(); }
});

// ---- the gateway's own file tools (--tools fs): the fs gate through a real client -------
test('--tools fs: the file tools are served, read-before-edit holds across calls, guard-paths holds writes through a link', async () => {
  const ws = path.join(root, 'ws');
  mkdirSync(ws, { recursive: true });
  writeFileSync(path.join(ws, 'plan.md'), 'step one\n');
  const c = await connect({ gatewayArgs: ['--tools', 'fs', '--workspace', root, '--code-mode'] });
  try {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['fs.read', 'fs.write', 'fs.edit', 'fs.list', 'read_text_file', 'run_code'])
      assert.ok(names.includes(n), `${n} in ${names}`);
    const edit = { name: 'fs.edit', arguments: { path: 'ws/plan.md', old: 'one', new: 'two' } };
    const refused = await c.client.callTool(edit);
    assert.equal(refused.isError, true, JSON.stringify(refused));
    assert.equal(errorOf(refused).source, 'host/read-before-edit');
    assert.equal(readFileSync(path.join(ws, 'plan.md'), 'utf8'), 'step one\n');
    // The same session reads it, then the edit goes through.
    assert.notEqual((await c.client.callTool({ name: 'fs.read', arguments: { path: 'ws/plan.md' } })).isError, true);
    const edited = await c.client.callTool(edit);
    assert.notEqual(edited.isError, true, JSON.stringify(edited));
    assert.equal(readFileSync(path.join(ws, 'plan.md'), 'utf8'), 'step two\n');
    // A link inside the workspace to a file outside guard-paths' write roots:
    // refused, whoever asks (here a script through run_code), nothing written.
    symlinkSync(path.join(outside, 'via-link.txt'), path.join(ws, 'link.txt'));
    const r = await c.client.callTool({ name: 'run_code', arguments: { code:
      `try { await tools["fs.write"]({path: "ws/link.txt", content: "x"}); return "written"; }
       catch (e) { return e.name + ": " + e.message; }` } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.match(textOf(r), /ToolDenied: .*outside the write roots/);
    assert.equal(existsSync(path.join(outside, 'via-link.txt')), false);
  } finally { await c.close(); }
});

// ---- hardening: paths around the pipeline that used to be open ------------------------
const TEST_PLUGINS = process.env.TOOLGATE_TEST_PLUGIN_DIR;  // tests/plugins/*, built
function testManifest(name, plugins) {
  const file = path.join(tmp, `${name}.json`);
  writeFileSync(file, JSON.stringify({ toolgate: 1, plugins }));
  return file;
}
const testkit = (config) => ({ id: 'test.kit', path: path.join(TEST_PLUGINS, 'testkit.so'), config });

test('a tool the policy denies whatever its arguments is not offered in tools/list; its calls are still denied', async () => {
  const readOnly = testManifest('read-only', [
    { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
      config: { rules: [
        // Conditional: some arguments pass, so edit_file stays offered.
        { tools: 'edit_file', when: [{ pointer: '/dryRun', equals: true }], verdict: 'allow' },
        { tools: 'edit_file', verdict: 'ask', reason: 'edits need approval' },
        // Unconditional denials: never offered.
        { tools: ['write_file', 'move_file'], verdict: 'deny', reason: 'this session is read-only' },
        // Only scripts are refused: offered to the client, which calls directly.
        { tools: 'create_directory', callers: { from_code: true }, verdict: 'deny', reason: 'not from code' },
      ] } },
  ]);
  const c = await connect({ manifestFile: readOnly });
  try {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['write_file', 'move_file']) assert.ok(!names.includes(n), `${n} is offered: ${names}`);
    for (const n of ['read_text_file', 'edit_file', 'create_directory', 'list_directory'])
      assert.ok(names.includes(n), `${n} is not offered: ${names}`);
    // Hiding is an offer, not the decision: a client that calls anyway is denied by the policy.
    const target = path.join(root, 'hidden-write.txt');
    const r = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(r.isError, true);
    assert.equal(errorOf(r).code, 'denied');
    assert.match(textOf(r), /this session is read-only/);
    assert.ok(!existsSync(target), 'the hidden tool wrote its file');
  } finally { await c.close(); }
});

test("guard-paths narrows its roots to the client's roots, and follows them when they change", async () => {
  const narrowing = testManifest('client-roots', [
    { id: 'toolgate.guard-paths', path: path.join(PLUGINS, 'toolgate_guard-paths.so'),
      config: { read_roots: [tmp], base: tmp, client_roots: 'intersect' } },
  ]);
  let current = [`file://${root}`];
  const c = await connect({ server: 'test', manifestFile: narrowing, roots: () => current });
  const look = (p) => c.client.callTool({ name: 'look', arguments: { path: p } });
  try {
    // Both folders are inside the manifest's root; the client has only `root` open.
    assert.equal(textOf(await look(path.join(root, 'hello.txt'))), `looked at ${path.join(root, 'hello.txt')}`);
    let r = await look(path.join(outside, 'x'));
    assert.equal(errorOf(r)?.code, 'denied', JSON.stringify(r));
    assert.match(textOf(r), /narrowed to the client's roots/);
    // The client switches folders: the next call follows.
    current = [`file://${outside}`, 'https://example.com/not-a-folder'];
    await c.client.sendRootsListChanged();
    assert.equal(textOf(await look(path.join(outside, 'x'))), `looked at ${path.join(outside, 'x')}`);
    r = await look(path.join(root, 'hello.txt'));
    assert.equal(errorOf(r)?.code, 'denied', JSON.stringify(r));
    // A root outside the manifest's adds nothing.
    current = ['file:///usr'];
    await c.client.sendRootsListChanged();
    r = await look('/usr/share');
    assert.equal(errorOf(r)?.code, 'denied', JSON.stringify(r));
    assert.match(textOf(r), /which leaves none/);
  } finally { await c.close(); }
});

test('raw: a tools/call sent as a notification never reaches the server', async () => {
  const log = newLog();
  const g = rawGateway([], log, {
    manifestFile: testManifest('deny-all', [testkit({ guard: 'deny' })]), server: rawServer });
  g.send(init);
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // No id: the server above would execute it, unguarded.
  g.send({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'run', arguments: { tag: 'smuggled' } } });
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run', arguments: { tag: 'asked' } } });
  const denied = await g.next((m) => m.id === 2);
  assert.equal(denied.result._meta['toolgate/error'].code, 'denied');
  g.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  await g.next((m) => m.id === 3);  // the server has read everything sent before
  assert.equal(readLog(log), '', 'the server executed nothing');
  assert.match(g.stderr(), /dropping a message from the client: "tools\/call" sent as a notification/);
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
});

test('raw: a client cannot call the reserved mcp/ names as tools', async () => {
  // "mcp/elicitation/create" is how the pipeline sees a server's question to
  // the user; called as a tool it would put the model's own words to the
  // user as if the server asked, and send the answer back to the model.
  const g = rawGateway([], '', { server: rawServer });
  g.send({ ...init, params: { ...init.params, capabilities: { elicitation: {} } } });
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 10;
  for (const name of ['mcp/elicitation/create', 'mcp/resources/read', 'mcp/sampling/createMessage']) {
    g.send({ jsonrpc: '2.0', id: ++id, method: 'tools/call',
      params: { name, arguments: { message: 'toolgate: approval needed', requestedSchema: { type: 'object' } } } });
    const r = await g.next((m) => m.id === id);
    assert.ok(r.error, `${name}: ${JSON.stringify(r)}`);
    assert.match(r.error.message, /reserved/);
  }
  // Nothing reached the client as the server's question meanwhile.
  assert.equal(g.messages.filter((m) => m.method === 'elicitation/create').length, 0);
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
});

test('raw: a carriage return inside a message cannot make a second message for the server', async () => {
  const log = newLog();
  const g = rawGateway([], log, {
    manifestFile: testManifest('deny-all', [testkit({ guard: 'deny' })]), server: rawServer });
  g.send(init);
  await g.next((m) => m.id === 1);
  // One notification to JSON (a bare CR is whitespace); three lines to a
  // reader that ends lines at CR, the middle one a tools/call no hook saw.
  const inner = JSON.stringify({ jsonrpc: '2.0', id: 's', method: 'tools/call',
    params: { name: 'run', arguments: { tag: 'smuggled' } } });
  g.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":\r${inner}\r}}`);
  g.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  await g.next((m) => m.id === 3);  // the server has read everything sent before
  assert.doesNotMatch(readLog(log), /executed run smuggled/);
  assert.doesNotMatch(readLog(log), /unparsable/, 'the server read the message in pieces');
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
});

test("raw: a plugin tool named like a server tool is refused, naming both, and neither runs", async () => {
  const log = newLog();
  const g = rawGateway([], log, {
    manifestFile: testManifest('clash', [{ id: 'test.c-status', path: path.join(TEST_PLUGINS, 'c_status.so') }]),
    server: rawServer });
  g.send(init);
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'c_tool', arguments: { tag: 'x' } } });
  const clash = await g.next((m) => m.id === 2);
  assert.ok(clash.error, JSON.stringify(clash));
  assert.match(clash.error.message, /the MCP server's tool "c_tool" has the same name as a tool of plugin "test.c-status"/);
  // The other server tools are served as before.
  g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run', arguments: { tag: 'ok' } } });
  const ok = await g.next((m) => m.id === 3);
  assert.notEqual(ok.result.isError, true, JSON.stringify(ok));
  assert.equal(readLog(log), 'executed run ok\n');
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
});

test('raw: what a plugin prints to stdout never reaches the client', async () => {
  const g = rawGateway([], '', { manifestFile: testManifest('noisy', [testkit({ print: 'PLUGIN NOISE' })]) });
  g.send(init);  // every stdout line is parsed as JSON-RPC: noise would throw
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { tag: 'quiet' } } });
  const r = await g.next((m) => m.id === 2);
  assert.equal(textOf(r.result), 'echo quiet');
  g.child.stdin.end();
  assert.deepEqual(await g.exited, { code: 0, signal: null });
  assert.equal(g.stderr().match(/PLUGIN NOISE/g)?.length, 2, 'init and the guard printed, to stderr');
});

test('raw: a guard that never returns does not keep the gateway alive after the client leaves', async () => {
  const log = newLog();
  const g = rawGateway([], log, { manifestFile: testManifest('looping', [testkit({ guard: 'loop' })]), server: rawServer });
  g.send(init);
  await g.next((m) => m.id === 1);
  g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run', arguments: { tag: 'stuck' } } });
  await new Promise((r) => setTimeout(r, 300));
  const closed = Date.now();
  g.child.stdin.end();
  const { code } = await g.exited;
  assert.equal(code, 1);
  assert.ok(Date.now() - closed < 12000, `exited ${Date.now() - closed} ms after stdin closed`);
  assert.match(g.stderr(), /1 call\(s\) still running 5000 ms after they were cancelled at shutdown: tool "run"/);
  assert.equal(readLog(log), '', 'the guarded call never reached the server');
});

// ---- the server's lifetime is the gateway's (issue 17 item 7) ---------------------------

// A process is gone when it no longer exists or is a zombie nobody reaped
// (an orphan's new parent may be a container's init that never reaps).
function gone(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function stubbornGateway() {
  const pids = path.join(tmp, `pids-${++logCounter}`);
  const g = rawGateway([], '', { server: rawServer, env: { TG_TEST_PIDS: pids } });
  g.send(init);
  await g.next((m) => m.id === 1);
  await until('the server wrote its pids', () => existsSync(pids) && readFileSync(pids, 'utf8').includes(' '));
  const [server, grandchild] = readFileSync(pids, 'utf8').trim().split(' ').map(Number);
  leftovers.pids.push(server, grandchild);
  assert.ok(!gone(server) && !gone(grandchild), 'the server and its child run');
  return { g, server, grandchild };
}

test('SIGTERM stops the gateway and its server, and what the server started, in order', async () => {
  const { g, server, grandchild } = await stubbornGateway();
  const t0 = Date.now();
  g.child.kill('SIGTERM');
  const { code, signal } = await g.exited;
  assert.deepEqual({ code, signal }, { code: 143, signal: null }, g.stderr());
  assert.ok(Date.now() - t0 < 9000, `took ${Date.now() - t0} ms`);
  // stdin closed, then SIGTERM (ignored), then SIGKILL -- to the whole group.
  await until('the server is gone', () => gone(server), 3000);
  await until("the server's own child is gone", () => gone(grandchild), 3000);
  assert.match(g.stderr(), /ignored SIGTERM; sending SIGKILL/);
});

test('SIGINT stops it too', async () => {
  const { g, server, grandchild } = await stubbornGateway();
  g.child.kill('SIGINT');
  assert.deepEqual(await g.exited, { code: 130, signal: null });
  await until('the server is gone', () => gone(server), 3000);
  await until("the server's own child is gone", () => gone(grandchild), 3000);
});

test('a gateway killed outright takes its server with it (PR_SET_PDEATHSIG)', async () => {
  const { g, server, grandchild } = await stubbornGateway();
  g.child.kill('SIGKILL');
  await g.exited;
  await until('the server is gone', () => gone(server), 3000);
  // The server's own child is not ours to reach without the gateway: stop it here.
  try { process.kill(grandchild, 'SIGKILL'); } catch { /* already gone */ }
});

// ---- fidelity (issue 17) ----------------------------------------------------------------

test('a lone surrogate (a string cut inside an emoji) reads as U+FFFD both ways instead of failing the message', async () => {
  const log = newLog();
  const g = rawGateway([], log, { server: rawServer });
  try {
    g.send(init);
    await g.next((m) => m.id === 1);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // From the client: JSON.stringify writes the lone half as the escape \ud83d.
    g.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"tag":"a\\ud83d"}}}');
    const r = await g.next((m) => m.id === 2);
    assert.equal(r.error, undefined, JSON.stringify(r));
    assert.equal(textOf(r.result), 'ran a\ufffd');
    assert.match(readLog(log), /executed run a\ufffd/);
    // From the server.
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'run', arguments: { tag: 'cut' } } });
    const cut = await g.next((m) => m.id === 3);
    assert.notEqual(cut.result?.isError, true, JSON.stringify(cut));
    assert.equal(textOf(cut.result), 'ran cut\ufffd');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

// ---- fidelity: what no hook changed goes back as the server sent it ----------------------
async function rawCall(g, id, tag) {
  g.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run', arguments: { tag } } });
  return g.next((m) => m.id === id);
}

test("a server's JSON-RPC error reaches the client as that error, code and data (URL elicitation, -32042)", async () => {
  const g = rawGateway([], newLog(), { server: rawServer });
  try {
    g.send(init);
    await g.next((m) => m.id === 1);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const r = await rawCall(g, 2, 'rpc-error');
    assert.equal(r.result, undefined, JSON.stringify(r));
    assert.equal(r.error.code, -32042);
    assert.equal(r.error.data.elicitations[0].url, 'https://example.com/connect');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test("a result's _meta, unknown fields and an error result's images are relayed, not dropped or flattened", async () => {
  const g = rawGateway([], newLog(), { server: rawServer });
  try {
    g.send(init);
    await g.next((m) => m.id === 1);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const ok = await rawCall(g, 2, 'meta');
    assert.deepEqual(ok.result._meta, { 'example.com/trace': 'abc' });
    assert.deepEqual(ok.result.futureField, { kept: true });
    assert.deepEqual(ok.result.structuredContent, { n: 1 });
    const bad = await rawCall(g, 3, 'error-image');
    assert.equal(bad.result.isError, true);
    assert.equal(bad.result.content.length, 2, JSON.stringify(bad));
    assert.equal(bad.result.content[1].type, 'image');
    assert.equal(bad.result._meta['example.com/why'], 'quota');
    assert.equal(bad.result._meta['toolgate/error'].code, 'tool_error');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test('an answer the gateway cannot parse still ends its call, naming why', async () => {
  const g = rawGateway([], newLog(), { server: rawServer });
  try {
    g.send(init);
    await g.next((m) => m.id === 1);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const r = await rawCall(g, 2, 'invalid-answer');
    assert.match(JSON.stringify(r), /answer is not valid: .*duplicate key \\"content\\"/, JSON.stringify(r));
    assert.doesNotMatch(JSON.stringify(r), /second/);
    // The session goes on.
    assert.equal(textOf((await rawCall(g, 3, 'after')).result), 'ran after');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test('an answer a hook changed is rebuilt: a redacted JSON-RPC error never reaches the client as sent', async () => {
  const redacting = testManifest('redact-run', [
    { id: 'toolgate.redact', path: path.join(PLUGINS, 'toolgate_redact.so'), config: { tools: 'run' } }]);
  const g = rawGateway([], newLog(), { server: rawServer, manifestFile: redacting });
  try {
    g.send(init);
    await g.next((m) => m.id === 1);
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const r = await rawCall(g, 2, 'secret-error');
    assert.equal(r.error, undefined, JSON.stringify(r));
    assert.equal(r.result.isError, true);
    assert.doesNotMatch(JSON.stringify(r), /AKIAIOSFODNN7EXAMPLE/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test('numbers and spelling cross the gateway byte for byte both ways where no hook acts', async () => {
  const g = await rawSession([], newLog(), { server: rawServer });
  try {
    // Spellings JSON.stringify never writes, a value Boost.JSON 1.81 read
    // one ulp off, an integer beyond 64 bits.
    const args = '{"tag":"echo-line","n":0.00011133861541748047,"big":123456789012345678901234567890,"half":5E-1, "spaced" : [ 1.0 ]}';
    const params = `{"name":"run","arguments":${args},"_meta":{"progressToken":"p-1"}}`;
    g.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":${params}}`);
    const r = await g.next((m) => m.id === 2);
    const seen = r.result.content[0].text;  // what the server read
    assert.match(seen, /^\{"jsonrpc":"2\.0","id":\d+,"method":"tools\/call","params":(.*)\}$/);
    assert.equal(seen.slice(seen.indexOf('"params":') + 9, -1), params);
    // What the client read: the server's result exactly as it wrote it.
    const serverResult = `{"content":[{"type":"text","text":${JSON.stringify(seen)}}],` +
      '"structuredContent":{"n":0.00011133861541748047,"big":123456789012345678901234567890,"half":5E-1, "spaced" : [ 1.0 ]},"isError":false}';
    assert.equal(r.raw, `{"jsonrpc":"2.0","id":2,"result":${serverResult}}`);

    // A request the gateway only relays: only the id changes, each way.
    const sent = '{"jsonrpc":"2.0","id":"c-7","method":"test/echo","params":{"n":1.50E+0,"big":123456789012345678901234567890}}';
    g.send(sent);
    const e = await g.next((m) => m.id === 'c-7');
    const line = e.result.line;
    const serverId = line.match(/^\{"jsonrpc":"2\.0","id":(\d+),/)?.[1];
    assert.ok(serverId, line);
    assert.equal(line, sent.replace('"id":"c-7"', `"id":${serverId}`));
    assert.equal(e.raw, `{"jsonrpc":"2.0","id":"c-7","result":{"line":${JSON.stringify(line)},"n":0.00011133861541748047}}`);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

// ---- gated requests: what is not a tools/call runs the pipeline too ---------------------
test('resources/read and sampling run the pipeline as mcp/* calls: a denied read never reaches the server, a denied sampling never reaches the client', async () => {
  const log = newLog();
  writeFileSync(path.join(root, 'ok.txt'), 'ok');
  const gated = testManifest('gated', [
    { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
      config: { rules: [{ name: 'no-sampling', tools: 'mcp/sampling/createMessage', verdict: 'deny',
        reason: 'servers may not use the model here' }] } },
    { id: 'toolgate.guard-paths', path: path.join(PLUGINS, 'toolgate_guard-paths.so'),
      config: { read_roots: [root], base: root,
        arguments: [{ tools: 'mcp/resources/read', pointers: ['/uri'] }] } },
  ]);
  const g = await rawSession([], log, { server: rawServer, manifestFile: gated });
  try {
    // Inside the allowed folder: the server's answer, byte for byte.
    const okUri = `file://${root}/ok.txt`;
    g.send({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: okUri } });
    const ok = await g.next((m) => m.id === 2);
    assert.equal(ok.raw, `{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":${JSON.stringify(okUri)},` +
      `"mimeType":"text/plain","text":"contents of ${okUri}"}],"_meta":{"n":1.0E0}}}`);
    // A file the guard denies: a JSON-RPC error naming the guard; the server never read it.
    g.send({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///etc/passwd' } });
    const denied = await g.next((m) => m.id === 3);
    assert.equal(denied.error?.code, -32001, JSON.stringify(denied));
    assert.equal(denied.error.data['toolgate/error'].code, 'denied');
    assert.match(denied.error.data['toolgate/error'].source, /guard-paths/);
    assert.match(readLog(log), /read file:\/\/.*ok\.txt/);
    assert.doesNotMatch(readLog(log), /read file:\/\/\/etc\/passwd/);
    // The server asks the client's model: the policy refuses, the server gets
    // the refusal as a JSON-RPC error, and the client never sees the request.
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'run', arguments: { tag: 'sample' } } });
    const sampled = await g.next((m) => m.id === 4);
    assert.match(textOf(sampled.result), /"code":-32001/);
    assert.match(textOf(sampled.result), /servers may not use the model here/);
    assert.equal(g.messages.filter((m) => m.method === 'sampling/createMessage').length, 0);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test('a sampling request the policy allows reaches the client and its answer goes back to the server', async () => {
  const log = newLog();
  // One call at a time: the tool call waiting for the server must not hold
  // up the sampling request the server makes meanwhile (it has its own workers).
  const g = await rawSession(['--max-calls-in-flight', '1'], log, { server: rawServer, manifestFile: testManifest('empty', []) });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run', arguments: { tag: 'sample' } } });
    const ask = await g.next((m) => m.method === 'sampling/createMessage');
    assert.equal(ask.params.messages[0].content.text, 'say hi');
    g.send(`{"jsonrpc":"2.0","id":${JSON.stringify(ask.id)},"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m","n":5E-1}}`);
    const r = await g.next((m) => m.id === 2);
    // The server read the client's answer byte for byte (its id aside).
    assert.match(textOf(r.result), /"result":\{"role":"assistant","content":\{"type":"text","text":"hi"\},"model":"m","n":5E-1\}/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test("a server's sampling request reaches the client as a plain request (no task, no server task id), and its tasks/* requests are refused", async () => {
  const log = newLog();
  const g = await rawSession(['--max-calls-in-flight', '1'], log, { server: rawServer, manifestFile: testManifest('empty-tasks', []) });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run', arguments: { tag: 'sample-task' } } });
    const ask = await g.next((m) => m.method === 'sampling/createMessage');
    assert.equal(ask.params.task, undefined, ask.raw);
    assert.doesNotMatch(ask.raw, /related-task|srv-1/);
    g.send({ jsonrpc: '2.0', id: ask.id, result: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } });
    await g.next((m) => m.id === 2);
    await until('the server to hear about its tasks/get', () => /tasks\/get answered/.test(readLog(log)));
    assert.match(readLog(log), /tasks\/get answered .*"code":-32601/);
    assert.equal(g.messages.filter((m) => m.method === 'tasks/get').length, 0);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

// ---- tool pinning: a tool that changes its definition mid-session ----------------------
test('a tool whose definition changes mid-session is blocked and left out of tools/list (pinned on first sight)', async () => {
  const log = newLog();
  const g = await rawSession([], log, { server: rawServer, manifestFile: testManifest('empty', []) });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.deepEqual((await g.next((m) => m.id === 2)).result.tools.map((t) => t.name), ['run', 'c_tool']);
    // The server changes what "run" says, and says the list changed.
    assert.equal(textOf((await rawCall(g, 3, 'mutate')).result), 'mutated');
    await g.next((m) => m.method === 'notifications/tools/list_changed');
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    const list = (await g.next((m) => m.id === 4)).result.tools;
    assert.deepEqual(list.map((t) => t.name), ['c_tool']);  // the new wording never reaches the model
    const r = await rawCall(g, 5, 'after');
    assert.equal(r.result.isError, true, JSON.stringify(r));
    assert.equal(errorOf(r.result).code, 'denied');
    assert.equal(errorOf(r.result).source, 'toolgate.mcp/pins');
    assert.match(errorOf(r.result).message, /changed its definition since it was pinned/);
    assert.doesNotMatch(readLog(log), /executed run after/);
    assert.match(g.stderr(), /changed its definition/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test('toolgate mcp pin writes the pins; with --pins a tool the file does not name is blocked, the others serve', async () => {
  const pins = path.join(tmp, 'raw.pins.json');
  const pin = spawn(TOOLGATE, ['mcp', 'pin', '--pins', pins, '--', process.execPath, rawServer], { stdio: 'inherit' });
  assert.equal(await new Promise((resolve) => pin.on('exit', resolve)), 0);
  const file = JSON.parse(readFileSync(pins, 'utf8'));
  assert.deepEqual(Object.keys(file.tools).sort(), ['c_tool', 'run']);
  assert.match(file.tools.run, /^sha256:[0-9a-f]{64}$/);
  // A pin file that names only run: c_tool counts as changed.
  const onlyRun = path.join(tmp, 'run-only.pins.json');
  writeFileSync(onlyRun, JSON.stringify({ toolgate_pins: 1, tools: { run: file.tools.run } }));
  const log = newLog();
  const g = await rawSession(['--pins', onlyRun], log, { server: rawServer, manifestFile: testManifest('empty', []) });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.deepEqual((await g.next((m) => m.id === 2)).result.tools.map((t) => t.name), ['run']);
    assert.equal(textOf((await rawCall(g, 3, 'pinned')).result), 'ran pinned');
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'c_tool', arguments: {} } });
    const r = await g.next((m) => m.id === 4);
    assert.equal(errorOf(r.result).source, 'toolgate.mcp/pins');
    assert.match(errorOf(r.result).message, /not in the pin file/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
  // A broken pin file is refused at start, naming the problem.
  const bad = path.join(tmp, 'bad.pins.json');
  writeFileSync(bad, JSON.stringify({ toolgate_pins: 1, tools: { run: 'md5:abc' } }));
  const b = rawGateway(['--pins', bad], newLog(), { server: rawServer, manifestFile: testManifest('empty', []) });
  b.child.stdin.end();
  assert.equal((await b.exited).code, 1);
  assert.match(b.stderr(), /not a pin file: \/tools\/run: a pin is "sha256:"/);
});

test('with --on-drift ask a changed tool asks the user first; declined, it does not run', async () => {
  const log = newLog();
  const g = await rawSession(['--on-drift', 'ask'], log, { server: rawServer, manifestFile: testManifest('empty', []) },
    { ...init, params: { ...init.params, capabilities: { elicitation: {} } } });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await g.next((m) => m.id === 2);
    await rawCall(g, 3, 'mutate');
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    assert.deepEqual((await g.next((m) => m.id === 4)).result.tools.map((t) => t.name), ['run', 'c_tool']);
    g.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'run', arguments: { tag: 'asked' } } });
    const ask = await g.next((m) => m.method === 'elicitation/create');
    assert.match(ask.params.message, /changed its definition/);
    g.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'decline' } });
    const r = await g.next((m) => m.id === 5);
    assert.equal(r.result.isError, true);
    assert.match(textOf(r.result), /not run: the user did not approve it/);
    assert.doesNotMatch(readLog(log), /executed run asked/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test('raw 2026-07-28: with --on-drift ask a changed tool is asked as an input_required, and the retry runs it', async () => {
  const log = newLog();
  const g = rawGateway(['--on-drift', 'ask'], log, { server: rawServer, manifestFile: testManifest('empty', []) });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  const call = (id, tag, extra = {}) => g.send({ jsonrpc: '2.0', id, method: 'tools/call',
    params: { _meta: meta, name: 'run', arguments: { tag }, ...extra } });
  try {
    g.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    await g.next((m) => m.id === 1);
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } });
    await g.next((m) => m.id === 2);
    call(3, 'mutate');
    await g.next((m) => m.id === 3);
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } });
    await g.next((m) => m.id === 4);
    call(5, 'asked');
    const asked = await g.next((m) => m.id === 5);
    assert.equal(asked.result.resultType, 'input_required', JSON.stringify(asked));
    const question = asked.result.inputRequests['toolgate/approval'];
    assert.match(question.params.message, /changed its definition/);
    assert.doesNotMatch(readLog(log), /executed run asked/);
    call(6, 'asked', { inputResponses: { 'toolgate/approval': { action: 'accept', content: {} } },
      requestState: asked.result.requestState });
    const ran = await g.next((m) => m.id === 6);
    assert.equal(ran.result.resultType, 'complete', JSON.stringify(ran));
    assert.match(readLog(log), /executed run asked/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

// ---- tasks (2025-11-25): the gateway's own, over the server's ---------------------------
const tasksManifest = () => testManifest('tasks', [
  { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
    config: { rules: [{ tools: 'report', when: [{ pointer: '/id', equals: 'refused' }],
      verdict: 'deny', reason: 'no report on that' }] } },
  { id: 'toolgate.redact', path: path.join(PLUGINS, 'toolgate_redact.so'), config: { tools: 'report' } },
]);
const streamed = async (client, args) => {
  const out = [];
  for await (const m of client.experimental.tasks.callToolStream({ name: 'report', arguments: args })) out.push(m);
  return out;
};
const secretKey = 'AKIA' + 'IOSFODNN7EXAMPLE';

test("a task-augmented call gets the gateway's task, and post-execute acts on the task's final result", async () => {
  const log = newLog();
  const c = await connect({ server: 'test', manifestFile: tasksManifest(), log });
  try {
    const { tools } = await c.client.listTools();  // the client learns report runs only as a task
    assert.equal(tools.find((t) => t.name === 'report').execution.taskSupport, 'required');
    const seen = await streamed(c.client, { ms: 300, secret: secretKey, id: 'r1' });
    const created = seen.find((m) => m.type === 'taskCreated');
    assert.ok(created, JSON.stringify(seen));
    assert.match(created.task.taskId, /^tg-[0-9a-f]{32}$/);  // the gateway's, not the server's
    const result = seen.find((m) => m.type === 'result');
    assert.ok(result, JSON.stringify(seen));
    // redact ran on the report, not on the task handle.
    assert.match(textOf(result.result), /^report r1: key \[REDACTED/);
    assert.doesNotMatch(JSON.stringify(seen), /AKIAIOSFODNN7EXAMPLE|related-task/);
    assert.match(readLog(log), /task done r1/);
    const { tasks } = await c.client.experimental.tasks.listTasks();
    assert.ok(tasks.some((t) => t.taskId === created.task.taskId && t.status === 'completed'), JSON.stringify(tasks));
    // tasks/result again: the same final result, still redacted.
    const again = await c.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    assert.equal(textOf(again), textOf(result.result));
    // A task id the gateway did not make is unknown here (the server's never reach the client).
    await assert.rejects(c.client.experimental.tasks.getTask('not-a-task'), /no task "not-a-task"/);
  } finally { await c.close(); }
});

test('a tool the server runs only as a task runs for a client that sends no task: the gateway waits for the server task', async () => {
  const log = newLog();
  const c = await connect({ server: 'test', manifestFile: tasksManifest(), log });
  try {
    // Sent as a plain tools/call (the SDK itself refuses once it knows the tool needs a task).
    const r = await c.client.request({ method: 'tools/call', params: { name: 'report', arguments: { ms: 50, secret: 'none', id: 'r2' } } },
      CallToolResultSchema);
    assert.equal(textOf(r), 'report r2: key none');
    assert.match(readLog(log), /task done r2/);
    // The server's task result names its task in _meta; that id is the server's business.
    assert.doesNotMatch(JSON.stringify(r), /related-task/);
  } finally { await c.close(); }
});

test('a task-augmented call the policy refuses makes no task and never reaches the server', async () => {
  const log = newLog();
  const c = await connect({ server: 'test', manifestFile: tasksManifest(), log });
  try {
    await c.client.listTools();
    const seen = await streamed(c.client, { ms: 50, secret: 'x', id: 'refused' });
    assert.deepEqual(seen.map((m) => m.type), ['error'], JSON.stringify(seen));
    assert.match(seen[0].error.message, /no report on that/);
    const { tasks } = await c.client.experimental.tasks.listTasks();
    assert.equal(tasks.length, 0);
    assert.doesNotMatch(readLog(log), /task started refused/);
  } finally { await c.close(); }
});

test("tasks/cancel on the gateway's task stops the server's task", async () => {
  const log = newLog();
  const c = await connect({ server: 'test', manifestFile: tasksManifest(), log });
  try {
    await c.client.listTools();
    const seen = [];
    for await (const m of c.client.experimental.tasks.callToolStream({ name: 'report', arguments: { ms: 20000, secret: 'x', id: 'r3' } })) {
      seen.push(m);
      if (m.type === 'taskCreated') {
        await until('the server to start the task', () => /task started r3/.test(readLog(log)));
        const cancelled = await c.client.experimental.tasks.cancelTask(m.task.taskId);
        assert.equal(cancelled.status, 'cancelled');
      }
    }
    assert.equal(seen.at(-1).type, 'error', JSON.stringify(seen));
    await until('the server to see the cancellation', () => /task cancelled r3/.test(readLog(log)));
    assert.doesNotMatch(readLog(log), /task done r3/);
  } finally { await c.close(); }
});

// ---- MCP 2026-07-28 clients (the official SDK 2.x client) ------------------------------
// The SDK 2.x packages need Node.js >= 20; under an older Node these tests
// are skipped, and say so.
const nodeMajor = Number(process.versions.node.split('.')[0]);
const modernTest = (name, fn) => test(name, nodeMajor >= 20 ? {} : {
  skip: `MCP 2026-07-28 needs the SDK 2.x client, which needs Node.js >= 20; this is Node.js ${process.version}`,
}, fn);

async function connectModern({ manifestFile = manifest, elicit = null, serverArgs = [fsServer, root] } = {}) {
  const { Client: Client2 } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport: Stdio2 } = await import('@modelcontextprotocol/client/stdio');
  // A subclass probes server/discover on this process (the SDK runs the
  // plain class's probe in a throw-away second process).
  class Transport extends Stdio2 {}
  const transport = new Transport({
    command: TOOLGATE, args: ['mcp', manifestFile, '--', process.execPath, ...serverArgs], stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client2({ name: 'toolgate-e2e-2026', version: '1.0.0' }, {
    capabilities: elicit ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: 'auto' },
  });
  if (elicit) client.setRequestHandler('elicitation/create', elicit);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

modernTest('a 2026-07-28 client through the gateway in front of a 2025 server: discover, lists, calls, denials', async () => {
  const c = await connectModern();
  try {
    assert.equal(c.client.getProtocolEra(), 'modern');
    assert.equal(c.client.getNegotiatedProtocolVersion(), '2026-07-28');
    const { tools } = await c.client.listTools();
    assert.ok(tools.some((t) => t.name === 'read_text_file'));
    const r = await c.client.callTool({ name: 'read_text_file', arguments: { path: path.join(root, 'hello.txt') } });
    assert.equal(textOf(r), 'hello from toolgate\n');
    const target = path.join(outside, 'modern.txt');
    const denied = await c.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(denied.isError, true);
    assert.equal(errorOf(denied).code, 'denied');
    assert.ok(!existsSync(target));
  } finally { await c.close(); }
});

modernTest("under 2026-07-28 an ask is a multi round-trip question: accepted, the retry runs; declined, nothing is written", async () => {
  const asked = [];
  const yes = await connectModern({ elicit: async (req) => { asked.push(req.params); return { action: 'accept', content: {} }; } });
  try {
    const target = path.join(root, 'ask-me-2026.txt');
    const r = await yes.client.callTool({ name: 'write_file', arguments: { path: target, content: 'approved' } });
    assert.equal(r.isError ?? false, false, JSON.stringify(r));
    assert.equal(readFileSync(target, 'utf8'), 'approved');
    assert.equal(asked.length, 1);
    assert.match(asked[0].message, /writing a file named ask-me needs approval/);
    assert.match(asked[0].message, /ask-me-2026\.txt/);
  } finally { await yes.close(); }
  const no = await connectModern({ elicit: async () => ({ action: 'decline' }) });
  try {
    const target = path.join(root, 'ask-me-2026-declined.txt');
    const r = await no.client.callTool({ name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(r.isError, true);
    assert.equal(errorOf(r).code, 'approval_rejected');
    assert.ok(!existsSync(target));
  } finally { await no.close(); }
});

test('raw 2026-07-28: a forged requestState, or one given for other arguments, is asked again and never approves', async () => {
  const askLook = testManifest('ask-look', [
    { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
      config: { rules: [{ tools: 'look', when: [{ pointer: '/path', regex: 'ask-me' }], verdict: 'ask', reason: 'looking there needs approval' }] } },
  ]);
  const g = rawGateway([], '', { manifestFile: askLook });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  try {
    g.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    const discover = await g.next((m) => m.id === 1);
    assert.deepEqual(discover.result.supportedVersions, ['2026-07-28']);
    assert.equal(discover.result.resultType, 'complete');
    assert.equal(discover.result.cacheScope, 'private');
    // Another version in the same session: -32022 naming what is spoken.
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } });
    const other = await g.next((m) => m.id === 2);
    assert.equal(other.error.code, -32022);
    assert.deepEqual(other.error.data, { supported: ['2026-07-28'], requested: '2099-01-01' });
    const list = await (g.send({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta } }), g.next((m) => m.id === 3));
    assert.equal(list.result.resultType, 'complete');
    assert.equal(list.result.ttlMs, 0);

    const call = (id, p, extra = {}) => g.send({ jsonrpc: '2.0', id, method: 'tools/call',
      params: { _meta: meta, name: 'look', arguments: { path: p }, ...extra } });
    call(4, '/ask-me/a');
    const asked = await g.next((m) => m.id === 4);
    assert.equal(asked.result.resultType, 'input_required', JSON.stringify(asked));
    const question = asked.result.inputRequests['toolgate/approval'];
    assert.equal(question.method, 'elicitation/create');
    assert.match(question.params.message, /looking there needs approval/);
    const state = asked.result.requestState;
    const yes = { 'toolgate/approval': { action: 'accept', content: {} } };
    // Forged: one character changed.
    const forged = state.slice(0, -2) + (state.at(-2) === 'A' ? 'B' : 'A') + state.at(-1);
    call(5, '/ask-me/a', { inputResponses: yes, requestState: forged });
    assert.equal((await g.next((m) => m.id === 5)).result.resultType, 'input_required');
    // Genuine, but given for other arguments.
    call(6, '/ask-me/b', { inputResponses: yes, requestState: state });
    assert.equal((await g.next((m) => m.id === 6)).result.resultType, 'input_required');
    // Genuine, same arguments: runs, and the server never saw the gateway's round-trip members.
    call(7, '/ask-me/a', { inputResponses: yes, requestState: state });
    const ran = await g.next((m) => m.id === 7);
    assert.equal(ran.result.resultType, 'complete', JSON.stringify(ran));
    assert.equal(ran.result.content[0].text, 'looked at /ask-me/a');
    // Replayed: an approval is for one run, so the same state asks again.
    call(8, '/ask-me/a', { inputResponses: yes, requestState: state });
    assert.equal((await g.next((m) => m.id === 8)).result.resultType, 'input_required');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

test("raw 2026-07-28 client, 2025 server: the gateway holds the client's subscriptions/listen and hands each list change to the subscriptions that asked", async () => {
  // --on-drift allow: "mutate" changes the tool that it is, and is called again.
  const g = rawGateway(['--on-drift', 'allow'], newLog(), { server: rawServer, manifestFile: testManifest('empty', []), env: { TG_TEST_LIST_CHANGED: '1' } });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
  const mutate = (id) => g.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { _meta: meta, name: 'run', arguments: { tag: 'mutate' } } });
  const changes = () => g.messages.filter((m) => m.method === 'notifications/tools/list_changed');
  try {
    g.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    assert.deepEqual((await g.next((m) => m.id === 1)).result.capabilities.tools, { listChanged: true });
    // Before any subscription a list change reaches nobody (the client did not ask).
    mutate(2);
    await g.next((m) => m.id === 2);
    await new Promise((r) => setTimeout(r, 300));  // the server's notification follows its answer
    g.send({ jsonrpc: '2.0', id: 'S1', method: 'subscriptions/listen', params: { _meta: meta,
      notifications: { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['file:///x'] } } });
    const ack = await g.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'S1' }, notifications: { toolsListChanged: true } },
      'only what the server announces is acknowledged');
    g.send({ jsonrpc: '2.0', id: 'S2', method: 'subscriptions/listen', params: { _meta: meta, notifications: { promptsListChanged: true } } });
    const ack2 = await g.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack2.params.notifications, {});
    assert.equal(changes().length, 0, 'the change before any subscription was not passed on');
    mutate(3);
    await g.next((m) => m.id === 3);
    const changed = await g.next((m) => m.method === 'notifications/tools/list_changed');
    assert.deepEqual(changed.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'S1' } });
    // Cancelled: no response, and no more notifications.
    g.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'S1' } });
    mutate(4);
    await g.next((m) => m.id === 4);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(changes().length, 0, JSON.stringify(g.messages));
    assert.equal(g.messages.filter((m) => m.id === 'S1' || m.id === 'S2').length, 0, 'open subscriptions get no response');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
});

test('raw 2026-07-28: the tasks extension -- a task of the gateway whose tasks/get carries the final, redacted result', async () => {
  const log = newLog();
  const g = rawGateway([], log, { manifestFile: tasksManifest() });
  const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps };
  const plainMeta = { ...meta, 'io.modelcontextprotocol/clientCapabilities': {} };
  let id = 0;
  const ask = async (method, params, m = meta) => {
    const n = ++id;
    g.send({ jsonrpc: '2.0', id: n, method, params: { _meta: m, ...params } });
    return g.next((x) => x.id === n);
  };
  try {
    const discover = await ask('server/discover', {});
    assert.deepEqual(discover.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} });
    const created = await ask('tools/call', { name: 'report', arguments: { ms: 200, secret: secretKey, id: 'm1' } });
    assert.equal(created.result.resultType, 'task', JSON.stringify(created));
    assert.match(created.result.taskId, /^tg-[0-9a-f]{32}$/);
    assert.equal(typeof created.result.ttlMs, 'number');
    assert.equal(typeof created.result.pollIntervalMs, 'number');
    let got;
    for (let i = 0; i < 100; i++) {
      got = await ask('tasks/get', { taskId: created.result.taskId });
      if (got.result.status !== 'working') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(got.result.resultType, 'complete');
    assert.equal(got.result.status, 'completed', JSON.stringify(got));
    assert.match(got.result.result.content[0].text, /^report m1: key \[REDACTED/);
    assert.doesNotMatch(got.raw, /AKIAIOSFODNN7EXAMPLE|related-task/);
    assert.equal((await ask('tasks/update', { taskId: created.result.taskId, inputResponses: {} })).error.code, -32602);
    assert.equal((await ask('tasks/result', { taskId: created.result.taskId })).error.code, -32601);
    // Cancelled: an empty acknowledgement, and the server's task stops.
    const slow = await ask('tools/call', { name: 'report', arguments: { ms: 20000, secret: 'x', id: 'm2' } });
    await until('the server to start the task', () => /task started m2/.test(readLog(log)));
    const cancelled = await ask('tasks/cancel', { taskId: slow.result.taskId });
    assert.deepEqual(cancelled.result, { resultType: 'complete' });
    await until('the server to see the cancellation', () => /task cancelled m2/.test(readLog(log)));
    assert.equal((await ask('tasks/get', { taskId: slow.result.taskId })).result.status, 'cancelled');
    // A client that did not declare the extension gets the result itself.
    const plain = await ask('tools/call', { name: 'report', arguments: { ms: 50, secret: 'none', id: 'm3' } }, plainMeta);
    assert.equal(plain.result.resultType, 'complete');
    assert.equal(plain.result.content[0].text, 'report m3: key none');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
});

// ---- MCP 2026-07-28 servers: probed with server/discover, spoken to in that version ------
// modern-server.mjs speaks 2026-07-28 only and logs each request's _meta.
const modernPolicy = (extraRules = []) => testManifest('modern-policy', [
  { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
    config: { rules: [...extraRules,
      { tools: 'echo', when: [{ pointer: '/tag', regex: '^deny' }], verdict: 'deny', reason: 'tags starting deny are refused' },
      { tools: 'mcp/elicitation/create', when: [{ pointer: '/message', regex: 'password' }], verdict: 'deny', reason: 'no server asks the user for a password' },
    ] } },
  // The user's answers to a server's questions pass post-execute too.
  { id: 'toolgate.redact', path: path.join(PLUGINS, 'toolgate_redact.so'), config: { tools: 'mcp/elicitation/create' } },
]);
// The requests a 2026-07-28 server may answer with questions: on them the
// gateway declares what the client can be asked.
const asking = ['tools/call', 'prompts/get', 'resources/read'];
const answersLogged = (log) => readLog(log).split('\n').filter((l) => l.startsWith('answers ')).map((l) => JSON.parse(l.slice(8)));
// The server's log of answers, where the second round's name carried a
// secret: no secret reached the server, redact's note travelled with the
// answer (as on a 2025 server's own request); returned with the redacted
// part of the name and the note taken out, for comparing.
const redactedAnswersLogged = (log) => {
  const logged = answersLogged(log);
  assert.doesNotMatch(JSON.stringify(logged), /AKIA/);
  logged[1].answers.confirm.content.name = logged[1].answers.confirm.content.name.replace(/ .*/, '');
  assert.match(logged[1].answers.confirm._meta['toolgate/additional_contexts'][0], /1 secret in the result of mcp\/elicitation\/create was redacted/);
  delete logged[1].answers.confirm._meta;
  return logged;
};
const requestLines = (log) => readLog(log).split('\n').filter((l) => /^[a-z]+\/[a-z]+ \{/.test(l))
  .map((l) => ({ method: l.slice(0, l.indexOf(' ')), meta: JSON.parse(l.slice(l.indexOf(' ') + 1)) }));

test('2026-07-28 server, 2025 client: initialize answered from server/discover, every request in the envelope, denials never reach it', async () => {
  const log = newLog();
  const g = rawGateway([], log, { server: modernServer, manifestFile: modernPolicy() });
  // The client's roots, whenever the gateway asks (for guards, and for the server's question).
  const answerRoots = setInterval(() => {
    for (let i; (i = g.messages.findIndex((m) => m.method === 'roots/list')) >= 0;) {
      const [m] = g.messages.splice(i, 1);
      g.send({ jsonrpc: '2.0', id: m.id, result: { roots: [{ uri: 'file:///work/ada' }] } });
    }
  }, 20);
  try {
    g.send({ ...init, params: { ...init.params, capabilities: { elicitation: {}, roots: {} } } });
    const hello = (await g.next((m) => m.id === 1)).result;
    assert.equal(hello.protocolVersion, '2025-06-18');
    assert.deepEqual(hello.serverInfo, { name: 'modern-test-server', version: '2.0.0' });
    assert.equal(hello.instructions, 'a test server of the 2026-07-28 era');
    assert.deepEqual(hello.capabilities.tools, { listChanged: true });
    assert.equal(hello.capabilities.extensions, undefined, 'the server\'s extensions are not the 2025 client\'s');
    g.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    g.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    assert.deepEqual((await g.next((m) => m.id === 2)).result, {});
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.deepEqual((await g.next((m) => m.id === 3)).result.tools.map((t) => t.name), ['echo', 'mutate', 'ask', 'phish', 'flood']);
    g.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { tag: 'hi' } } });
    const echoed = await g.next((m) => m.id === 4);
    assert.deepEqual(JSON.parse(echoed.result.content[0].text), { arguments: { tag: 'hi' } });
    assert.match(echoed.raw, /"structuredContent":\{"n":0\.00011133861541748047,"half":5E-1\}/, 'numbers cross as they came');
    g.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'echo', arguments: { tag: 'deny-me' } } });
    const denied = (await g.next((m) => m.id === 5)).result;
    assert.equal(errorOf(denied).code, 'denied');
    // The server asks for input (input_required): the gateway puts each
    // question to the 2025 client as the request of its method, through
    // the pipeline, and retries the call with the answers and the state.
    g.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'ask', arguments: {} } });
    const question = await g.next((m) => m.method === 'elicitation/create');
    assert.equal(question.params.message, 'Type your name');
    g.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: `Ada ${secretKey}` } } });
    const asked = (await g.next((m) => m.id === 6)).result;
    assert.match(textOf(asked), /^hello Ada \S+ in file:\/\/\/work\/ada$/, JSON.stringify(asked));
    assert.doesNotMatch(textOf(asked), /AKIA/, 'the answer was redacted before the server saw it');
    // A question the policy refuses never reaches the user, and the call fails naming why.
    g.send({ jsonrpc: '2.0', id: 61, method: 'tools/call', params: { name: 'phish', arguments: {} } });
    const phished = (await g.next((m) => m.id === 61)).result;
    assert.equal(phished.isError, true, JSON.stringify(phished));
    assert.match(textOf(phished), /question "confirm" \(elicitation\/create\) was not answered: .*no server asks the user for a password/);
    assert.equal(g.messages.filter((m) => m.method === 'elicitation/create').length, 0, 'the phishing question never reached the client');
    // prompts/get may ask too.
    g.send({ jsonrpc: '2.0', id: 62, method: 'prompts/get', params: { name: 'greet' } });
    const whom = await g.next((m) => m.method === 'elicitation/create');
    assert.equal(whom.params.message, 'Whom to greet?');
    g.send({ jsonrpc: '2.0', id: whom.id, result: { action: 'accept', content: { name: 'Lin' } } });
    const greeted = await g.next((m) => m.id === 62);
    assert.equal(greeted.result?.messages?.[0]?.content?.text, 'greet Lin', greeted.raw);
    // A rug pull mid-session: the server tells the gateway's subscription,
    // the 2025 client hears list_changed, and the changed tool is blocked.
    g.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'mutate', arguments: {} } });
    await g.next((m) => m.id === 7);
    const changed = await g.next((m) => m.method === 'notifications/tools/list_changed');
    assert.equal(changed.params?._meta, undefined, 'no subscription id of the gateway\'s reaches a 2025 client');
    g.send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    assert.deepEqual((await g.next((m) => m.id === 8)).result.tools.map((t) => t.name), ['mutate', 'ask', 'phish', 'flood']);
    g.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { tag: 'after' } } });
    assert.equal(errorOf((await g.next((m) => m.id === 9)).result).source, 'toolgate.mcp/pins');
  } finally {
    clearInterval(answerRoots);
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
  const requests = requestLines(log);
  assert.deepEqual(requests.slice(0, 5).map((r) => r.method),
    ['server/discover', 'subscriptions/listen', 'tools/list', 'tools/call', 'tools/call'],
    'the probe first, then the gateway\'s subscription, no initialize; ping answered by the gateway; the denied call never sent');
  assert.ok(!requests.some((r) => r.method === 'initialize'));
  for (const r of requests) {
    assert.equal(r.meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28');
    // What the client can answer is declared only where the server may ask: the gateway takes those questions.
    assert.deepEqual(r.meta['io.modelcontextprotocol/clientCapabilities'], asking.includes(r.method) ? { elicitation: {}, roots: {} } : {}, r.method);
  }
  assert.doesNotMatch(readLog(log), /notifications\/initialized/);
  assert.equal(readLog(log).match(/executed echo/g).length, 1, 'neither the denied call nor the blocked one reached the server');
  const logged = redactedAnswersLogged(log);
  assert.deepEqual(logged, [
    { state: null, answers: null },
    { state: 'server-state-1', answers: { confirm: { action: 'accept', content: { name: 'Ada' } }, where: { roots: [{ uri: 'file:///work/ada' }] } } },
    { state: null, answers: null },
  ], 'ask retried once with the answers; phish never retried');
});

test('2026-07-28 server, 2026-07-28 client: discover from the server, its cache hints replaced, the client\'s capabilities not passed on', async () => {
  const log = newLog();
  const g = rawGateway([], log, { server: modernServer, manifestFile: testManifest('empty', []) });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, sampling: {} },
    'io.modelcontextprotocol/clientInfo': { name: 'raw-2026', version: '1' },
  };
  try {
    g.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } });
    const d = (await g.next((m) => m.id === 1)).result;
    assert.deepEqual(d.supportedVersions, ['2026-07-28']);
    assert.deepEqual(d._meta['io.modelcontextprotocol/serverInfo'], { name: 'modern-test-server', version: '2.0.0' });
    assert.equal(d.ttlMs, 0);
    assert.equal(d.cacheScope, 'private');
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } });
    const listed = await g.next((m) => m.id === 2);
    assert.equal(listed.result.resultType, 'complete');
    assert.equal(listed.result.ttlMs, 0, listed.raw);
    assert.equal(listed.result.cacheScope, 'private', listed.raw);
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { _meta: meta, name: 'echo', arguments: { tag: 'modern' } } });
    const echoed = await g.next((m) => m.id === 3);
    assert.equal(echoed.result.resultType, 'complete');
    assert.match(echoed.raw, /"n":0\.00011133861541748047,"half":5E-1/);
    g.send({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { _meta: meta, uri: 'file:///etc/hostname' } });
    const read = await g.next((m) => m.id === 4);
    assert.equal(read.result.cacheScope, 'private', read.raw);
    assert.equal(read.result.ttlMs, 0, read.raw);
    // The client's own subscription: relayed, and its notifications carry
    // the id it gave it; the gateway's own subscription stays the gateway's.
    g.send({ jsonrpc: '2.0', id: 'L1', method: 'subscriptions/listen', params: { _meta: meta, notifications: { toolsListChanged: true } } });
    const ack = await g.next((m) => m.method === 'notifications/subscriptions/acknowledged');
    assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 'L1');
    g.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { _meta: meta, name: 'mutate', arguments: {} } });
    await g.next((m) => m.id === 5);
    const changed = await g.next((m) => m.method === 'notifications/tools/list_changed');
    assert.equal(changed.params._meta['io.modelcontextprotocol/subscriptionId'], 'L1');
    g.send({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: meta } });
    assert.deepEqual((await g.next((m) => m.id === 6)).result.tools.map((t) => t.name), ['mutate', 'ask', 'phish', 'flood']);
    assert.equal(g.messages.filter((m) => m.method === 'notifications/tools/list_changed').length, 0, 'one notification, not two');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
  const requests = requestLines(log);
  assert.deepEqual(requests.map((r) => r.method).filter((m) => m !== 'subscriptions/listen').slice(0, 4),
    ['server/discover', 'tools/list', 'tools/call', 'resources/read']);
  for (const r of requests.slice(1).filter((r) => r.meta['io.modelcontextprotocol/clientInfo']?.name === 'raw-2026' || r.method !== 'subscriptions/listen')) {
    // Only what the client can answer, and only where the server may ask (the gateway takes those questions).
    assert.deepEqual(r.meta['io.modelcontextprotocol/clientCapabilities'],
      asking.includes(r.method) ? { elicitation: { form: {} }, sampling: {} } : {}, r.method);
    assert.deepEqual(r.meta['io.modelcontextprotocol/clientInfo'], { name: 'raw-2026', version: '1' }, 'the client\'s own identity passes');
  }
});

test("2026-07-28 server, 2026-07-28 client: the server's questions pass the pipeline and reach the client in the gateway's sealed round trip", async () => {
  const log = newLog();
  // "ask" also needs the user's approval: the gateway's question comes first,
  // and the retry that answers the server's is not asked it again.
  const manifestFile = modernPolicy([{ tools: 'ask', verdict: 'ask', reason: 'asking needs approval' }]);
  const g = rawGateway([], log, { server: modernServer, manifestFile });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, roots: {} },
  };
  const call = (id, name, extra = {}) => g.send({ jsonrpc: '2.0', id, method: 'tools/call',
    params: { _meta: meta, name, arguments: {}, ...extra } });
  try {
    call(1, 'ask');
    const approval = (await g.next((m) => m.id === 1)).result;
    assert.deepEqual(Object.keys(approval.inputRequests), ['toolgate/approval'], JSON.stringify(approval));
    call(2, 'ask', { inputResponses: { 'toolgate/approval': { action: 'accept', content: {} } }, requestState: approval.requestState });
    const asked = (await g.next((m) => m.id === 2)).result;
    assert.equal(asked.resultType, 'input_required', JSON.stringify(asked));
    assert.deepEqual(Object.keys(asked.inputRequests), ['confirm', 'where']);
    assert.equal(asked.inputRequests.confirm.method, 'elicitation/create');
    assert.equal(asked.inputRequests.confirm.params.message, 'Type your name');
    assert.deepEqual(asked.inputRequests.where, { method: 'roots/list', params: {} });
    assert.match(asked.requestState, /^tg1\./, 'the state is the gateway\'s, not the server\'s');
    const answers = { confirm: { action: 'accept', content: { name: `Grace ${secretKey}` } }, where: { roots: [{ uri: 'file:///work/grace' }] } };
    call(3, 'ask', { inputResponses: answers, requestState: asked.requestState });
    const done = await g.next((m) => m.id === 3);
    assert.equal(done.result.resultType, 'complete', done.raw);
    assert.match(done.result.content[0].text, /^hello Grace \S+ in file:\/\/\/work\/grace$/);
    assert.doesNotMatch(done.raw, /AKIA/, 'the answer was redacted before the server saw it');
    // The same state again: spent, so the server gets no answers and asks
    // again (and the approval it carried is not good twice either).
    call(4, 'ask', { inputResponses: answers, requestState: asked.requestState });
    assert.deepEqual(Object.keys((await g.next((m) => m.id === 4)).result.inputRequests), ['toolgate/approval']);
    // A question the policy refuses never reaches the client.
    call(5, 'phish');
    const phished = await g.next((m) => m.id === 5);
    assert.equal(phished.result.resultType, 'complete');
    assert.equal(phished.result.isError, true, phished.raw);
    assert.match(textOf(phished.result), /question "confirm" \(elicitation\/create\) was refused: .*no server asks the user for a password/);
    // prompts/get may ask too: the same round trip, and the answer reaches the server with its state.
    g.send({ jsonrpc: '2.0', id: 'p1', method: 'prompts/get', params: { _meta: meta, name: 'greet' } });
    const whom = (await g.next((m) => m.id === 'p1')).result;
    assert.equal(whom.resultType, 'input_required', JSON.stringify(whom));
    assert.equal(whom.inputRequests.who.params.message, 'Whom to greet?');
    assert.match(whom.requestState, /^tg1\./);
    g.send({ jsonrpc: '2.0', id: 'p2', method: 'prompts/get', params: { _meta: meta, name: 'greet',
      inputResponses: { who: { action: 'accept', content: { name: 'Lin' } } }, requestState: whom.requestState } });
    const greeted = await g.next((m) => m.id === 'p2');
    assert.equal(greeted.result.resultType, 'complete', greeted.raw);
    assert.equal(greeted.result.messages[0].content.text, 'greet Lin');
    // Questions are bounded: each holds a pipeline call open until answered.
    call(7, 'flood');
    const flooded = await g.next((m) => m.id === 7);
    assert.equal(flooded.result.isError, true, flooded.raw);
    assert.match(textOf(flooded.result), /asked 17 questions at once for flood; toolgate takes at most 16/);
    // A client that declared nothing it can be asked: the server is told so, and asks nothing.
    g.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': {} }, name: 'phish', arguments: {} } });
    const mute = await g.next((m) => m.id === 6);
    assert.equal(mute.result.isError, true, mute.raw);
    assert.match(textOf(mute.result), /did not declare it can answer/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
  const logged = redactedAnswersLogged(log);
  assert.deepEqual(logged, [
    { state: null, answers: null },
    { state: 'server-state-1', answers: { confirm: { action: 'accept', content: { name: 'Grace' } }, where: { roots: [{ uri: 'file:///work/grace' }] } } },
    { state: null, answers: null },
    { state: null, answers: null },
  ], 'the gateway\'s own state never reaches the server; the answers go back with the server\'s; the spent state and the refused approval call the server without answers');
});

modernTest('the SDK 2.x client through the gateway to a server that speaks only 2026-07-28', async () => {
  const c = await connectModern({ manifestFile: modernPolicy(), serverArgs: [modernServer] });
  try {
    assert.equal(c.client.getNegotiatedProtocolVersion(), '2026-07-28');
    const { tools } = await c.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['echo', 'mutate', 'ask', 'phish', 'flood']);
    const r = await c.client.callTool({ name: 'echo', arguments: { tag: 'sdk2' } });
    assert.deepEqual(JSON.parse(textOf(r)), { arguments: { tag: 'sdk2' } });
    const denied = await c.client.callTool({ name: 'echo', arguments: { tag: 'deny-sdk2' } });
    assert.equal(errorOf(denied).code, 'denied');
  } finally { await c.close(); }
});

test('a 2025 server that ends when probed is started again and spoken to in 2025; --server-protocol 2026-07-28 refuses it', async () => {
  const log = newLog();
  const g = await rawSession([], log, { server: rawServer, manifestFile: testManifest('empty', []), env: { TG_TEST_INIT_FIRST: '1' } });
  try {
    assert.equal(textOf((await rawCall(g, 2, 'after-restart')).result), 'ran after-restart');
    assert.match(g.stderr(), /ended when probed with server\/discover .*exited with status 3.*starting it again/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0);
  assert.equal(readLog(log).match(/^started /gm).length, 2, readLog(log));
  const strict = rawGateway(['--server-protocol', '2026-07-28'], newLog(), { server: rawServer, manifestFile: testManifest('empty', []) });
  strict.child.stdin.end();
  assert.equal((await strict.exited).code, 1);
  assert.match(strict.stderr(), /does not speak MCP 2026-07-28, which --server-protocol 2026-07-28 requires: it answered server\/discover with an error/);
});

// The official SDK 2.x server: probed, it is spoken to in 2026-07-28, by
// clients of both eras through the gateway.
const addPolicy = () => testManifest('add-policy', [
  { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
    config: { rules: [{ tools: 'add', when: [{ pointer: '/a', equals: 13 }], verdict: 'deny', reason: 'unlucky' }] } },
]);

modernTest('the SDK 2.x server behind the gateway is spoken to in 2026-07-28, by a 2025 client (SDK 1.32) and a 2026-07-28 client (SDK 2.x)', async () => {
  const log = newLog();
  const old = await connect({ server: 'sdk2', log, manifestFile: addPolicy() });
  try {
    assert.equal(old.client.getServerVersion().name, 'toolgate-sdk2-server');
    const r = await old.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.equal(textOf(r), '5');
    const denied = await old.client.callTool({ name: 'add', arguments: { a: 13, b: 1 } });
    assert.equal(errorOf(denied).code, 'denied');
    assert.match(old.stderr(), /the MCP server speaks MCP 2026-07-28/);
  } finally { await old.close(); }
  assert.equal(readLog(log), 'executed add 2 3\n', 'the denied call never reached the server');
  const modern = await connectModern({ manifestFile: addPolicy(), serverArgs: [sdk2Server] });
  try {
    assert.equal(modern.client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.equal(textOf(await modern.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })), '42');
    assert.match(modern.stderr(), /the MCP server speaks MCP 2026-07-28/);
  } finally { await modern.close(); }
});

test('toolgate mcp pin pins the tools of a server that speaks only 2026-07-28', async () => {
  const pins = path.join(tmp, 'modern.pins.json');
  const pin = spawn(TOOLGATE, ['mcp', 'pin', '--pins', pins, '--', process.execPath, modernServer], { stdio: 'inherit' });
  assert.equal(await new Promise((resolve) => pin.on('exit', resolve)), 0);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(pins, 'utf8')).tools).sort(), ['ask', 'echo', 'flood', 'mutate', 'phish']);
});

test('a 2025 server cannot put a 2026-07-28 question to the client: its result reaches the client as complete', async () => {
  // The server words its tools/call result as input_required; answered by
  // the client, the question would pass no hook.
  const g = rawGateway([], newLog(), { server: rawServer, manifestFile: testManifest('empty', []) });
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  try {
    g.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { _meta: meta, name: 'run', arguments: { tag: 'sneaky' } } });
    const r = await g.next((m) => m.id === 1);
    assert.equal(r.result.resultType, 'complete', r.raw);
    assert.equal(textOf(r.result), 'sneaky');
    // The same with the key written "result\u0054ype": no second member a
    // client's parser would read instead (JavaScript keeps the last).
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { _meta: meta, name: 'run', arguments: { tag: 'sneaky-escaped' } } });
    const e = await g.next((m) => m.id === 2);
    assert.equal(e.result.resultType, 'complete', e.raw);
    assert.equal(e.raw.match(/"result(Type|\\u0054ype)"/g)?.length, 1, e.raw);
    assert.equal(textOf(e.result), 'sneaky');
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
});

// ---- replicas: pins and approvals shared through a real redis-server ---------------------
const haveRedis = (() => { try { return spawnSync('redis-server', ['--version']).status === 0; } catch { return false; } })();
const redisTest = (name, fn) => test(name, haveRedis ? {} : {
  skip: 'redis-server is not installed (packaging/install-deps.sh installs it)',
}, fn);
// A redis-server of the test's own on 127.0.0.1, keeping nothing on disk.
async function startRedis(port) {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '',
    '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
  leftovers.children.push(child);
  const exited = new Promise((r) => child.on('exit', r));
  const accepts = () => new Promise((r) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); r(true); });
    s.on('error', () => r(false));
  });
  for (let i = 0; i < 500 && !(await accepts()); ++i) await new Promise((r) => setTimeout(r, 10));
  return { async stop() { child.kill('SIGKILL'); await exited; } };
}
const privateFile = (name, text) => {
  const file = path.join(tmp, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
};
const storeFlags = (port, prefix) => ['--redis', `127.0.0.1:${port}`, '--redis-prefix', `e2e-${process.pid}-${prefix}:`];

redisTest('replicas with --redis: a tool one replica pinned, changed before another meets it, is refused there; a store that does not answer refuses it too', async () => {
  const port = await freePort();
  let redis = await startRedis(port);
  const empty = testManifest('empty-replicas', []);
  const listed = async (g, id) => (g.send({ jsonrpc: '2.0', id, method: 'tools/list' }),
    (await g.next((m) => m.id === id)).result.tools.map((t) => t.name));
  const a = await rawSession(storeFlags(port, 'pins'), newLog(), { server: rawServer, manifestFile: empty });
  const log = newLog();
  const b = await rawSession(storeFlags(port, 'pins'), log, { server: rawServer, manifestFile: empty, env: { TG_TEST_MUTATED: '1' } });
  // Alone, a replica pins what it first sees, changed or not.
  const alone = await rawSession([], newLog(), { server: rawServer, manifestFile: empty, env: { TG_TEST_MUTATED: '1' } });
  try {
    assert.deepEqual(await listed(a, 2), ['run', 'c_tool']);
    assert.deepEqual(await listed(alone, 2), ['run', 'c_tool']);
    assert.deepEqual(await listed(b, 2), ['c_tool'], 'the changed tool is not offered');
    const r = await rawCall(b, 3, 'pulled');
    assert.equal(errorOf(r.result).source, 'toolgate.mcp/pins');
    assert.match(errorOf(r.result).message, /changed its definition since it was pinned by another replica in the shared store redis:\/\/127\.0\.0\.1:/);
    assert.doesNotMatch(readLog(log), /executed run pulled/);
    assert.equal(textOf((await rawCall(a, 3, 'kept')).result), 'ran kept');

    // The store goes away: a replica meeting the tools now cannot check
    // them, so it serves none of them until a listing reaches the store.
    await redis.stop();
    const c = await rawSession(storeFlags(port, 'down'), newLog(), { server: rawServer, manifestFile: empty });
    try {
      assert.deepEqual(await listed(c, 2), []);
      const refused = await rawCall(c, 3, 'unchecked');
      assert.match(errorOf(refused.result).message, /pin of the MCP server's tool "run" cannot be checked: the replicas' shared store .* did not answer/);
      redis = await startRedis(port);
      await new Promise((r) => setTimeout(r, 300));  // past the pause after a failure
      assert.deepEqual(await listed(c, 4), ['run', 'c_tool']);
      assert.equal(textOf((await rawCall(c, 5, 'checked')).result), 'ran checked');
    } finally { c.child.stdin.end(); }
    assert.equal((await c.exited).code, 0);
  } finally {
    for (const g of [a, b, alone]) g.child.stdin.end();
    await redis.stop();
  }
  for (const g of [a, b, alone]) assert.equal((await g.exited).code, 0, g.stderr());
});

redisTest('replicas with --seal-key-file: an approval asked on one runs on another, once; with the store down it is asked again', async () => {
  const port = await freePort();
  let redis = await startRedis(port);
  const askLook = testManifest('ask-look-replicas', [
    { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
      config: { rules: [{ tools: 'look', when: [{ pointer: '/path', regex: 'ask-me' }], verdict: 'ask', reason: 'looking there needs approval' }] } },
  ]);
  const keys = privateFile('seal.keys', `# the replicas' key\n${'0123456789abcdef'.repeat(4)}\n`);
  const shared = [...storeFlags(port, 'seal'), '--seal-key-file', keys];
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  const yes = { 'toolgate/approval': { action: 'accept', content: {} } };
  const call = (g, id, p, extra = {}) => (g.send({ jsonrpc: '2.0', id, method: 'tools/call',
    params: { _meta: meta, name: 'look', arguments: { path: p }, ...extra } }), g.next((m) => m.id === id));
  const a = rawGateway(shared, newLog(), { manifestFile: askLook });
  const b = rawGateway(shared, newLog(), { manifestFile: askLook });
  // Same store, its own key: what a replica without the key file does.
  const own = rawGateway(storeFlags(port, 'seal'), newLog(), { manifestFile: askLook });
  try {
    const asked = await call(a, 1, '/ask-me/a');
    assert.equal(asked.result.resultType, 'input_required', JSON.stringify(asked));
    const state = asked.result.requestState;
    assert.equal((await call(own, 1, '/ask-me/a', { inputResponses: yes, requestState: state })).result.resultType,
      'input_required', 'another key does not open it');
    const ran = await call(b, 2, '/ask-me/a', { inputResponses: yes, requestState: state });
    assert.equal(ran.result.resultType, 'complete', JSON.stringify(ran));
    assert.equal(ran.result.content[0].text, 'looked at /ask-me/a');
    // Spent on b, so a asks again: one approval, one run, whichever replica.
    assert.equal((await call(a, 3, '/ask-me/a', { inputResponses: yes, requestState: state })).result.resultType, 'input_required');
    assert.equal((await call(b, 4, '/ask-me/a', { inputResponses: yes, requestState: state })).result.resultType, 'input_required');

    // The store goes away: an approval cannot be spent once, so it is not taken.
    const again = (await call(a, 5, '/ask-me/b')).result.requestState;
    await redis.stop();
    assert.equal((await call(b, 6, '/ask-me/b', { inputResponses: yes, requestState: again })).result.resultType, 'input_required');
    assert.match(b.stderr(), /cannot accept \(the replicas' shared store redis:\/\/127\.0\.0\.1:\d+ \(prefix "[^"]+"\) did not answer, so it cannot be spent once/);
    redis = await startRedis(port);
    await new Promise((r) => setTimeout(r, 300));
    const later = await call(b, 7, '/ask-me/b', { inputResponses: yes, requestState: again });
    assert.equal(later.result.resultType, 'complete', JSON.stringify(later));
  } finally {
    for (const g of [a, b, own]) g.child.stdin.end();
    await redis.stop();
  }
  for (const g of [a, b, own]) assert.equal((await g.exited).code, 0, g.stderr());

  // Refused at start: a shared key without a store, a key others can read, a short key.
  const openKeys = path.join(tmp, 'open.keys');
  writeFileSync(openKeys, `${'0123456789abcdef'.repeat(4)}\n`, { mode: 0o644 });
  const shortKeys = privateFile('short.keys', 'too-short-for-a-key\n');
  for (const [args, why] of [
    [['--seal-key-file', keys], /--seal-key-file goes with --redis HOST:PORT: a shared key without a shared store would let one approval run once on every replica/],
    [[...storeFlags(port, 'x'), '--seal-key-file', openKeys], /the sealing key file .* can be read or written by others; run chmod 600 on it/],
    [[...storeFlags(port, 'x'), '--seal-key-file', shortKeys], /the sealing key file .*, line 1: each line must be at least 32 characters/],
    [['--redis', `127.0.0.1:${port}`], /--redis needs --redis-prefix P/],
  ]) {
    const g = rawGateway(args, '', { manifestFile: askLook });
    g.child.stdin.end();
    assert.notEqual((await g.exited).code, 0, args.join(' '));
    assert.match(g.stderr(), why);
  }
});

redisTest('three gateway replicas with rate-limit in Redis: a limit of 5 holds for the sum; the store stopped denies saying so; back, calls are served', async () => {
  const port = await freePort();
  let redis = await startRedis(port);
  const limited = testManifest('shared-limit', [
    { id: 'toolgate.rate-limit', path: path.join(PLUGINS, 'toolgate_rate-limit.so'),
      config: { limits: [{ name: 'shared', tools: 'echo', per: 'global', count: 5, seconds: 3600 }],
        store: { redis: `127.0.0.1:${port}`, prefix: `e2e-${process.pid}-rl:` } } },
  ]);
  const logs = [newLog(), newLog(), newLog()];
  const replicas = await Promise.all(logs.map((log) => rawSession([], log, { manifestFile: limited })));
  const echo = async (g, id, tag) => (g.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { tag } } }),
    (await g.next((m) => m.id === id)).result);
  try {
    let served = 0;
    let denial = '';
    for (let i = 0; i < 15; ++i) {
      const r = await echo(replicas[i % 3], 10 + i, `call-${i}`);
      if (r.isError) denial = errorOf(r).message; else ++served;
    }
    assert.equal(served, 5, 'five calls in all, not five per replica');
    assert.match(denial, /rate limit "shared" \(5 per 3600 s\) exceeded by echo/);
    await redis.stop();
    const down = await echo(replicas[1], 40, 'store-down');
    assert.equal(errorOf(down).code, 'denied');
    assert.match(errorOf(down).message, new RegExp(`rate limit store redis://127\\.0\\.0\\.1:${port} did not answer`));
    redis = await startRedis(port);  // empty: the window starts again
    await new Promise((r) => setTimeout(r, 300));  // past the pause after a failure
    assert.notEqual((await echo(replicas[2], 41, 'store-back')).isError, true);
  } finally {
    for (const g of replicas) g.child.stdin.end();
    await redis.stop();
  }
  for (const g of replicas) assert.equal((await g.exited).code, 0, g.stderr());
});

// ---- many servers behind one gateway (--servers) ------------------------------------------
test('three servers behind one gateway: prefixed tools in a fixed order, each call to its server, a hook for one server, a server that ends withdrawn', async () => {
  const logA = newLog(), logB = newLog();
  const serversFile = path.join(tmp, 'three.servers.json');
  writeFileSync(serversFile, JSON.stringify({ toolgate_servers: 1, servers: [
    { name: 'a', command: ['env', `TG_TEST_LOG=${logA}`, process.execPath, testServer] },
    { name: 'b', command: ['env', `TG_TEST_LOG=${logB}`, process.execPath, testServer] },
    { name: 'raw', command: [process.execPath, rawServer], prefix: false },
  ] }));
  const onlyB = testManifest('only-b', [
    { id: 'toolgate.policy', path: path.join(PLUGINS, 'toolgate_policy.so'),
      config: { rules: [{ tools: 'b.*', when: [{ pointer: '/tag', equals: 'blocked' }], verdict: 'deny', reason: 'not on server b' }] } },
  ]);
  const g = await rawSession([], '', { manifestFile: onlyB, serversFile });
  const listed = async (id) => (g.send({ jsonrpc: '2.0', id, method: 'tools/list' }),
    (await g.next((m) => m.id === id)).result.tools.map((t) => t.name));
  const callTool = async (id, name, args) => (g.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
    (await g.next((m) => m.id === id)).result);
  try {
    const names = await listed(2);
    const aTools = names.filter((n) => n.startsWith('a.'));
    assert.ok(aTools.includes('a.echo') && names.includes('b.echo') && names.includes('run') && names.includes('c_tool'), names.join());
    assert.deepEqual(names.filter((n) => n.startsWith('b.')), aTools.map((n) => n.replace(/^a\./, 'b.')), 'both servers list alike');
    assert.ok(names.indexOf('a.echo') < names.indexOf('b.echo') && names.indexOf('b.echo') < names.indexOf('run'), 'in the file\'s order');
    // Each call reaches its own server, under the tool's own name.
    assert.equal(textOf(await callTool(3, 'b.sleep', { ms: 1, id: 'on-b' })), 'slept 1 ms');
    assert.match(readLog(logB), /started sleep on-b/);
    assert.doesNotMatch(readLog(logA), /on-b/);
    assert.equal(textOf(await callTool(4, 'run', { tag: 'unprefixed' })), 'ran unprefixed');
    // The manifest's hook targets one server through its tool filter.
    const denied = await callTool(5, 'b.echo', { tag: 'blocked' });
    assert.equal(denied.isError, true);
    assert.match(errorOf(denied).message, /not on server b/);
    assert.equal(textOf(await callTool(6, 'a.echo', { tag: 'blocked' })), 'echo blocked');
    // A server answering requests it was not sent (ids are a counter) does
    // not answer another server's call in flight.
    g.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'a.sleep', arguments: { ms: 600, id: 'victim' } } });
    await until('the call to start on a', () => readLog(logA).includes('started sleep victim'));
    assert.equal(textOf(await callTool('forger', 'run', { tag: 'forge' })), 'forged around');
    const victim = await g.next((m) => m.id === 'slow');
    assert.equal(textOf(victim.result), 'slept 600 ms', 'the real answer, not the forged one');
    assert.match(g.stderr(), /the MCP server "raw" answered a request it was not sent: dropped/);
    // An answer no parser takes still ends the call it answers.
    g.send({ jsonrpc: '2.0', id: 'bad', method: 'tools/call', params: { name: 'run', arguments: { tag: 'invalid-answer' } } });
    const bad = await g.next((m) => m.id === 'bad');
    assert.match(JSON.stringify(bad), /the MCP server \\"raw\\"'s answer is not valid: .*duplicate key/, JSON.stringify(bad));
    // Server b ends mid-call: the call fails naming it, its tools are withdrawn, the others serve.
    g.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'b.crash', arguments: {} } });
    const crashed = await g.next((m) => m.id === 7);
    assert.match(crashed.error?.message ?? '', /the MCP server "b" ended \(exited with status 3\) before it answered/, JSON.stringify(crashed));
    await g.next((m) => m.method === 'notifications/tools/list_changed');
    const after = await listed(8);
    assert.deepEqual(after.filter((n) => n.startsWith('b.')), []);
    assert.ok(after.includes('a.echo') && after.includes('run'));
    assert.equal(textOf(await callTool(9, 'a.echo', { tag: 'still' })), 'echo still');
    const gone = await callTool(10, 'b.echo', { tag: 'x' });
    assert.equal(gone.isError, true);
    assert.match(g.stderr(), /the MCP server "b" ended \(exited with status 3\): its tools are withdrawn/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
});

test('--servers: a tool name two servers would share is refused at start, naming both; a bad servers file names the place', async () => {
  const collide = path.join(tmp, 'collide.servers.json');
  writeFileSync(collide, JSON.stringify({ toolgate_servers: 1, servers: [
    { name: 'first', command: [process.execPath, testServer], prefix: false },
    { name: 'second', command: [process.execPath, testServer], prefix: false },
  ] }));
  const bad = path.join(tmp, 'bad.servers.json');
  writeFileSync(bad, JSON.stringify({ toolgate_servers: 1, servers: [{ name: 'a', comand: ['x'] }] }));
  const dup = path.join(tmp, 'dup.servers.json');
  writeFileSync(dup, JSON.stringify({ toolgate_servers: 1, servers: [{ name: 'a', command: ['x'] }, { name: 'a', url: 'http://127.0.0.1:1/mcp' }] }));
  for (const [file, why] of [
    [collide, /the tool name "report" would be served by two MCP servers: "first" \(its tool "report"\) and "second" \(its tool "report"\); tool names must be unique/],
    [bad, /bad\.servers\.json: not a servers file: \/servers\/0\/comand: unknown key; remove it or use one of: name, command, url/],
    [dup, /\/servers\/1\/name: "a" names two servers; names are unique/],
  ]) {
    const g = rawGateway([], '', { serversFile: file });
    g.child.stdin.end();
    assert.equal((await g.exited).code, 1, g.stderr());
    assert.match(g.stderr(), why);
  }
});

test('mcp pin --servers writes the group\'s pins under the served names; the gateway serves with them and refuses a tool they do not name', async () => {
  const serversFile = path.join(tmp, 'pinned.servers.json');
  writeFileSync(serversFile, JSON.stringify({ toolgate_servers: 1, servers: [
    { name: 'raw', command: [process.execPath, rawServer] },
  ] }));
  const pinsFile = path.join(tmp, 'group.pins.json');
  const pin = spawn(TOOLGATE, ['mcp', 'pin', '--pins', pinsFile, '--servers', serversFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  pin.stderr.on('data', (d) => { err += d; });
  assert.equal(await new Promise((r) => pin.on('exit', r)), 0, err);
  const pins = JSON.parse(readFileSync(pinsFile, 'utf8'));
  assert.deepEqual(Object.keys(pins.tools).sort(), ['raw.c_tool', 'raw.run']);
  // Only raw.run pinned: raw.c_tool counts as changed.
  writeFileSync(pinsFile, JSON.stringify({ toolgate_pins: 1, tools: { 'raw.run': pins.tools['raw.run'] } }));
  const g = await rawSession(['--pins', pinsFile], '', { manifestFile: testManifest('empty-pins', []), serversFile });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.deepEqual((await g.next((m) => m.id === 2)).result.tools.map((t) => t.name), ['raw.run']);
    g.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'raw.c_tool', arguments: {} } });
    assert.match(errorOf((await g.next((m) => m.id === 3)).result).message, /not in the pin file/);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
});

test('--servers: prompts under the server\'s name, resources under their URIs; each request reaches its own server', async () => {
  const log = newLog();
  const serversFile = path.join(tmp, 'prompts.servers.json');
  writeFileSync(serversFile, JSON.stringify({ toolgate_servers: 1, servers: [
    { name: 'tools-only', command: [process.execPath, testServer] },
    { name: 'raw', command: ['env', `TG_TEST_LOG=${log}`, process.execPath, rawServer] },
  ] }));
  const g = await rawSession([], '', { manifestFile: testManifest('empty-prompts', []), serversFile });
  try {
    g.send({ jsonrpc: '2.0', id: 2, method: 'prompts/list' });
    assert.deepEqual((await g.next((m) => m.id === 2)).result.prompts.map((p) => p.name), ['raw.greet']);
    g.send({ jsonrpc: '2.0', id: 3, method: 'prompts/get', params: { name: 'raw.greet', arguments: { who: 'Ada' } } });
    const got = await g.next((m) => m.id === 3);
    assert.equal(got.result.messages[0].content.text, 'prompt greet', JSON.stringify(got));
    g.send({ jsonrpc: '2.0', id: 4, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'raw.greet' }, argument: { name: 'who', value: 'A' } } });
    const done = await g.next((m) => m.id === 4);
    assert.deepEqual(done.result.completion.values, ['Ada', 'Alan'], JSON.stringify(done));
    assert.match(readLog(log), /complete ref\/prompt greet/);
    g.send({ jsonrpc: '2.0', id: 5, method: 'prompts/get', params: { name: 'greet' } });
    assert.match(JSON.stringify(await g.next((m) => m.id === 5)), /unknown prompt \\"greet\\"/);
    // Resources keep their URIs; a read goes to the server that lists the
    // URI, or whose template it expands.
    g.send({ jsonrpc: '2.0', id: 6, method: 'resources/list' });
    assert.deepEqual((await g.next((m) => m.id === 6)).result.resources.map((r) => r.uri), ['file:///raw/notes.txt']);
    g.send({ jsonrpc: '2.0', id: 7, method: 'resources/templates/list' });
    assert.deepEqual((await g.next((m) => m.id === 7)).result.resourceTemplates.map((r) => r.uriTemplate), ['raw://items/{id}']);
    for (const [id, uri] of [[8, 'file:///raw/notes.txt'], [9, 'raw://items/42']]) {
      g.send({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri } });
      const read = await g.next((m) => m.id === id);
      assert.equal(read.result.contents[0].text, `contents of ${uri}`, JSON.stringify(read));
    }
    assert.match(readLog(log), /read file:\/\/\/raw\/notes\.txt\nread raw:\/\/items\/42/);
    g.send({ jsonrpc: '2.0', id: 10, method: 'resources/read', params: { uri: 'file:///etc/passwd' } });
    assert.match(JSON.stringify(await g.next((m) => m.id === 10)), /unknown resource/);
    assert.doesNotMatch(readLog(log), /passwd/, 'a URI no server offers reaches none');
    g.send({ jsonrpc: '2.0', id: 11, method: 'resources/subscribe', params: { uri: 'file:///raw/notes.txt' } });
    assert.equal((await g.next((m) => m.id === 11)).error?.code, -32601);
  } finally {
    g.child.stdin.end();
  }
  assert.equal((await g.exited).code, 0, g.stderr());
});
