// MCP servers over Streamable HTTP for the end-to-end tests, built on the
// official SDKs:
//   node http-servers.mjs modern [--tls CERT KEY] [--token T]
//     the SDK 2.x server (createMcpHandler): MCP 2026-07-28 (and stateless
//     2025 serving, which the gateway does not use when it can speak 2026)
//   node http-servers.mjs legacy [--token T]
//     the SDK 1.32 server on its sessionful Streamable HTTP transport
//     (2025-11-25: initialize, Mcp-Session-Id, server requests on SSE)
// Listens on 127.0.0.1, a port the kernel picks, and prints "listening
// PORT".  Tools: add (a, b), sleep (ms, id; notices cancellation), and, in
// legacy mode, confirm (asks the client with elicitation/create first).
// With TG_TEST_LOG set it appends one line per HTTP request ("http POST
// tools/call add auth=Bearer ... session=yes ... conn=PORT", PORT the
// client's side of the connection) and per tool event.  With
// --drop-idle-ms N a connection idle for N ms after an answer is closed
// while the Keep-Alive header still promises 5 s (a server whose idle
// timeout is shorter than it says, or that restarted).
import { appendFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';

const [mode, ...rest] = process.argv.slice(2);
const opt = (name, n = 1) => { const i = rest.indexOf(name); return i < 0 ? null : rest.slice(i + 1, i + 1 + n); };
const token = opt('--token')?.[0] ?? null;
const tls = opt('--tls', 2);
const dropIdleMs = opt('--drop-idle-ms') ? Number(opt('--drop-idle-ms')[0]) : null;
const log = (line) => { if (process.env.TG_TEST_LOG) appendFileSync(process.env.TG_TEST_LOG, line + '\n'); };

const sleep = (id, ms, signal) => new Promise((resolve) => {
  log(`started sleep ${id}`);
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); log(`cancelled sleep ${id}`); resolve(); });
});

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks);
}

let handle;
if (mode === 'modern') {
  const { McpServer, createMcpHandler } = await import('@modelcontextprotocol/server');
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'toolgate-http-modern', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
      async ({ a, b }) => { log(`executed add ${a} ${b}`); return { content: [{ type: 'text', text: String(a + b) }] }; });
    server.registerTool('sleep', { description: 'Sleeps', inputSchema: z.object({ ms: z.number(), id: z.string() }) },
      async ({ ms, id }, ctx) => { await sleep(id, ms, ctx?.mcpReq?.signal ?? ctx?.signal); return { content: [{ type: 'text', text: 'slept' }] }; });
    // Two arguments mirrored into Mcp-Param-* headers (x-mcp-header): the
    // SDK refuses a call whose headers are missing or disagree (400, -32020).
    server.registerTool('transfer', { description: 'Moves an amount from an account',
      inputSchema: z.object({ account: z.string().meta({ 'x-mcp-header': 'Account' }),
        cents: z.number().int().meta({ 'x-mcp-header': 'Cents' }), urgent: z.boolean().optional().meta({ 'x-mcp-header': 'Urgent' }),
        note: z.string().optional() }) },
      async ({ account, cents }) => { log(`executed transfer ${account} ${cents}`); return { content: [{ type: 'text', text: `moved ${cents} from ${account}` }] }; });
    return server;
  });
  handle = async (req, res, body) => {
    const ac = new AbortController();
    res.on('close', () => { if (!res.writableFinished) { log(`stream closed ${req.headers['mcp-name'] ?? ''}`); ac.abort(); } });
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method, headers: req.headers, signal: ac.signal,
      body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  };
} else if (mode === 'legacy') {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const sessions = {};
  const makeServer = () => {
    const server = new McpServer({ name: 'toolgate-http-legacy', version: '1.0.0' });
    server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => { log(`executed add ${a} ${b}`); return { content: [{ type: 'text', text: String(a + b) }] }; });
    server.registerTool('sleep', { description: 'Sleeps', inputSchema: { ms: z.number(), id: z.string() } },
      async ({ ms, id }, extra) => { await sleep(id, ms, extra.signal); return { content: [{ type: 'text', text: 'slept' }] }; });
    server.registerTool('confirm', { description: 'Asks first', inputSchema: {} }, async () => {
      const answer = await server.server.elicitInput({ message: 'Go ahead?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
      log(`confirm answered ${answer.action}`);
      return { content: [{ type: 'text', text: `answer ${answer.action}` }] };
    });
    return server;
  };
  handle = async (req, res, body) => {
    const sid = req.headers['mcp-session-id'];
    let t = sid ? sessions[sid] : undefined;
    const parsed = body.length ? JSON.parse(body.toString()) : undefined;
    if (!t && req.method === 'POST' && isInitializeRequest(parsed)) {
      t = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => { sessions[id] = t; } });
      t.onclose = () => { if (t.sessionId) { delete sessions[t.sessionId]; log('session closed'); } };
      await makeServer().connect(t);
    }
    if (!t) {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
    }
    await t.handleRequest(req, res, parsed);
  };
} else {
  console.error(`usage: http-servers.mjs modern|legacy [--tls CERT KEY] [--token T] [--drop-idle-ms N]`);
  process.exit(2);
}

const onRequest = async (req, res) => {
  const body = await readBody(req);
  let method = req.headers['mcp-method'] ?? '';
  let parsed = {};
  try { parsed = body.length ? JSON.parse(body.toString()) : {}; } catch { method ||= '?'; }
  if (!method && body.length) method = parsed.method ?? 'response';
  const trace = `trace=${req.headers.traceparent ?? 'none'} state=${req.headers.tracestate ?? 'none'} meta-trace=${parsed.params?._meta?.traceparent ?? 'none'}`;
  log(`http ${req.method} ${method} ${req.headers['mcp-name'] ?? ''} auth=${req.headers.authorization ?? 'none'} session=${req.headers['mcp-session-id'] ? 'yes' : 'no'} version=${req.headers['mcp-protocol-version'] ?? 'none'} ${trace} params=${Object.keys(req.headers).filter((k) => k.startsWith('mcp-param-')).sort().map((k) => `${k}=${req.headers[k]}`).join(',') || 'none'} conn=${req.socket.remotePort}`);
  if (dropIdleMs !== null) {
    const socket = req.socket;
    clearTimeout(socket.dropTimer);
    res.on('finish', () => { socket.dropTimer = setTimeout(() => socket.destroy(), dropIdleMs); });
  }
  if (token && req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer' });
    return res.end();
  }
  try {
    await handle(req, res, body);
  } catch (e) {
    log(`error ${e.message}`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
};
const server = tls
  ? https.createServer({ cert: readFileSync(tls[0]), key: readFileSync(tls[1]) }, onRequest)
  : http.createServer(onRequest);
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
