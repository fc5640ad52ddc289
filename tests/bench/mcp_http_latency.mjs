// What `toolgate mcp --listen ... -- URL` adds over HTTP: MCP 2026-07-28
// tools/call requests sent straight to an HTTP MCP server (the official
// SDK 2.x server, tests/mcp/http-servers.mjs) and through the gateway in
// front of the same server, side by side in one run, round by round
// interleaved (a change in the machine's speed touches every case alike).
// Wall clock, which is what a client waits for.
//
// Cases: direct; through a keep-alive reverse proxy written in Node.js
// (the anchor: what any HTTP process between client and server costs
// here, parsing nothing); through the gateway with an empty manifest.
// Then throughput with 50 and 200 clients in flight, and the gateway's
// resident memory after 10k and after 100k calls (nothing may grow per
// call).
//
// usage: node tests/bench/mcp_http_latency.mjs BUILD_DIR NODE_MODULES [ROUNDS [CALLS]]
//   BUILD_DIR: build/bench (toolgate, Release)
//   NODE_MODULES: a folder where tests/mcp's package-lock.json is installed
//                 (ctest's mcp.npm_ci puts one in BUILD/tests/mcp/node_modules)
//   CALLS: for the memory check (100000; RSS is read after a tenth and after all)
import { copyFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { callAdd, start, stopAll } from './mcp_http_support.mjs';

const [build, nodeModules, roundsArg, callsArg] = process.argv.slice(2);
if (!build || !nodeModules) {
  console.error('usage: node mcp_http_latency.mjs BUILD_DIR NODE_MODULES [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 2000);
const memoryCalls = Number(callsArg ?? 100000);
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const toolgate = path.resolve(build, 'host', 'toolgate');

// The server script beside a node_modules link, so its imports resolve.
const work = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tg-mcp-http-bench-')));
symlinkSync(path.resolve(nodeModules), path.join(work, 'node_modules'), 'dir');
copyFileSync(path.join(repo, 'tests/mcp/http-servers.mjs'), path.join(work, 'http-servers.mjs'));
const empty = path.join(work, 'empty.json');
writeFileSync(empty, JSON.stringify({ toolgate: 1, plugins: [] }));


const server = await start(process.execPath, [path.join(work, 'http-servers.mjs'), 'modern'], /listening (\d+)/);
const serverUrl = `http://127.0.0.1:${server.match[1]}/mcp`;

// The anchor: a reverse proxy that copies each request and its answer,
// with a keep-alive connection pool towards the server.
const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const proxy = http.createServer((req, res) => {
  const up = http.request(serverUrl, { method: req.method, headers: req.headers, agent: upstreamAgent }, (ur) => {
    res.writeHead(ur.statusCode, ur.headers);
    ur.pipe(res);
  });
  up.on('error', () => { res.destroy(); });
  req.pipe(up);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${proxy.address().port}/mcp`;

// --max-connections 1000: fetch's pool (undici) holds more connections than
// it has requests in flight (279 for 200 clients, counted with ss), and the
// default cap of 256 closes the rest at accept, which fails their requests.
async function gateway() {
  const g = await start(toolgate, ['mcp', '--listen', '127.0.0.1:0', '--max-connections', '1000', empty, '--', serverUrl],
    /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/);
  return { url: g.match[1], pid: g.child.pid, output: g.output };
}
const gw = await gateway();
process.on('uncaughtException', (e) => { console.error(e.message, '\ngateway says:', gw.output().slice(-3000)); process.exit(1); });

const call = callAdd;

const cases = { direct: serverUrl, 'node.js reverse proxy (anchor)': proxyUrl, 'toolgate mcp --listen, empty manifest': gw.url };
const ns = () => process.hrtime.bigint();
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const us = (x) => `${x.toFixed(1)} µs`;

for (let i = 0; i < 300; ++i) for (const url of Object.values(cases)) await call(url);
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < rounds; ++r) {
  for (const [name, url] of Object.entries(cases)) {
    const t = ns();
    await call(url);
    times[name].push(Number(ns() - t) / 1000);
  }
}

// Throughput: `clients` calls in flight until `total` are done.
async function throughput(url, clients, total) {
  let started = 0;
  const t = ns();
  const lane = async () => { while (started++ < total) await call(url); };
  await Promise.all(Array.from({ length: clients }, lane));
  return total / (Number(ns() - t) / 1e9);
}
const rates = {};
for (const clients of [50, 200]) {
  rates[clients] = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < 3; ++r)
    for (const [name, url] of Object.entries(cases)) rates[clients][name].push(await throughput(url, clients, 4000));
}

// Memory: a gateway of its own, its RSS after a tenth of the calls and
// after all of them (10k and 100k by default).
const rss = (pid) => Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)[1]);
const fresh = await gateway();
await throughput(fresh.url, 50, memoryCalls / 10);
const rssTenth = rss(fresh.pid);
await throughput(fresh.url, 50, memoryCalls - memoryCalls / 10);
const rssAll = rss(fresh.pid);

const base = quantile(times.direct, 0.5);
const base99 = quantile(times.direct, 0.99);
const out = { date: new Date().toISOString(), rounds, node: process.version, cases: {}, throughput: {}, rss_kb: {} };
console.log(`tools/call add over HTTP (MCP 2026-07-28), fetch keep-alive client, ${rounds} interleaved rounds (wall clock):`);
for (const [name, xs] of Object.entries(times)) {
  const p50 = quantile(xs, 0.5), p99 = quantile(xs, 0.99);
  out.cases[name] = { p50_us: p50, p99_us: p99, added_p50_us: p50 - base, added_p99_us: p99 - base99 };
  console.log(`  ${name.padEnd(40)} p50 ${us(p50).padStart(10)}  p99 ${us(p99).padStart(10)}  ${name === 'direct' ? 'baseline' : `added p50 +${us(p50 - base)}, p99 +${us(p99 - base99)}`}`);
}
for (const [clients, byCase] of Object.entries(rates)) {
  const med = Object.fromEntries(Object.entries(byCase).map(([k, xs]) => [k, quantile(xs, 0.5)]));
  out.throughput[clients] = med;
  console.log(`${clients} clients in flight (median of 3 x 4000 calls): ` +
    Object.entries(med).map(([k, v]) => `${k} ${v.toFixed(0)} calls/s (${(100 * v / med.direct).toFixed(0)} %)`).join('; '));
}
out.rss_kb = { calls: memoryCalls, after_a_tenth: rssTenth, after_all: rssAll, growth: rssAll / rssTenth - 1 };
console.log(`gateway resident memory: ${rssTenth} kB after ${memoryCalls / 10} calls, ${rssAll} kB after ${memoryCalls} (${(100 * (rssAll / rssTenth - 1)).toFixed(1)} %)`);
writeFileSync(path.join(build, 'mcp_http_latency.json'), JSON.stringify(out, null, 2));

stopAll();
proxy.close();
upstreamAgent.destroy();
rmSync(work, { recursive: true, force: true });
process.exit(0);
