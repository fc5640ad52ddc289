// What `toolgate mcp` adds for a real client: the official MCP SDK's stdio
// client (1.32) calls @modelcontextprotocol/server-filesystem directly and
// through the gateway, side by side in one run, round by round interleaved
// (a change in the machine's speed touches every case alike).  Wall clock,
// which is what a client waits for.
//
// Cases: tools/call read_text_file of a small file directly, through a
// byte relay (the anchor: the floor of any stdio gateway), through the
// gateway with an empty manifest, and through it with the sample filesystem
// policy (policy, guard-paths, timeout, redact: samples/manifests/
// mcp-filesystem.json with its paths pointed here); a relayed ping; and
// throughput with 20 calls in flight.
//
// usage: node tests/bench/mcp_sdk_latency.mjs BUILD_DIR NODE_MODULES [ROUNDS]
//   BUILD_DIR: build/bench (toolgate and the plugins, Release)
//   NODE_MODULES: a folder where tests/mcp's package-lock.json is installed
//                 (ctest's mcp.npm_ci puts one in BUILD/tests/mcp/node_modules)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  benchProject, checkRead, connect, interleavedRounds, loadSdk, median, readCall, samplePolicy,
} from './mcp_stdio_support.mjs';

const [build, nodeModules, roundsArg] = process.argv.slice(2);
if (!build || !nodeModules) {
  console.error('usage: node mcp_sdk_latency.mjs BUILD_DIR NODE_MODULES [ROUNDS]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 2000);
const toolgate = path.resolve(build, 'host', 'toolgate');
const sdk = await loadSdk(nodeModules);
const { fsServer } = sdk;
const project = benchProject('tg-mcp-bench-');
const { root, empty } = project;
const policy = samplePolicy(project, path.resolve(build, 'plugins'));

const node = process.execPath;
// The anchor: a byte relay (tests/bench/stdio_relay.c) in the same place
// as the gateway -- what any process between client and server costs here.
const relay = path.resolve(build, 'tests', 'bench', 'toolgate_stdio_relay');
const cases = {
  direct: await connect(sdk, node, [fsServer, root]),
  'byte relay (anchor)': await connect(sdk, relay, [node, fsServer, root]),
  'gateway, empty manifest': await connect(sdk, toolgate, ['mcp', empty, '--', node, fsServer, root]),
  'gateway, sample filesystem policy': await connect(sdk, toolgate, ['mcp', policy, '--', node, fsServer, root]),
};

const call = (c) => readCall(c, project);
for (const [name, c] of Object.entries(cases)) await checkRead(c, project, name);

const ns = () => process.hrtime.bigint();
const us = (x) => `${x.toFixed(1)} µs`;

// Warm-up, then interleaved rounds with the order rotating
// (interleavedRounds): the calls first, then the pings in rounds of their
// own -- a ping between calls warms its own server's processes for the
// next round's call, which made the case after it look faster.
for (let i = 0; i < 200; ++i) for (const c of Object.values(cases)) await call(c);
const times = await interleavedRounds(cases, rounds, call);
const pings = await interleavedRounds({
  direct: cases.direct,
  relay: cases['byte relay (anchor)'],
  gateway: cases['gateway, empty manifest'],
}, rounds, (c) => c.ping());

// Throughput: 20 calls in flight until `total` are done, alternating cases.
async function throughput(c, total = 4000, inFlight = 20) {
  let started = 0;
  const t = ns();
  const lane = async () => { while (started++ < total) await call(c); };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return total / (Number(ns() - t) / 1e9);
}
const rate = { direct: [], relay: [], gateway: [] };
for (let r = 0; r < 3; ++r) {
  rate.direct.push(await throughput(cases.direct));
  rate.relay.push(await throughput(cases['byte relay (anchor)']));
  rate.gateway.push(await throughput(cases['gateway, empty manifest']));
}

const base = median(times.direct);
const out = { date: new Date().toISOString(), rounds, node: process.version, cases: {} };
console.log(`tools/call read_text_file, SDK stdio client, ${rounds} interleaved rounds (p50, wall clock):`);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  out.cases[name] = { p50_us: m, added_us: m - base };
  console.log(`  ${name.padEnd(36)} ${us(m).padStart(10)}  ${name === 'direct' ? 'baseline' : `+${us(m - base)}`}`);
}
const pd = median(pings.direct), pr = median(pings.relay), pg = median(pings.gateway);
out.ping = { direct_p50_us: pd, relay_p50_us: pr, gateway_p50_us: pg, added_us: pg - pd };
console.log(`ping: ${us(pd)} direct, ${us(pr)} through the byte relay (+${us(pr - pd)}), ${us(pg)} through the gateway (+${us(pg - pd)})`);
const rd = median(rate.direct), rr = median(rate.relay), rg = median(rate.gateway);
out.throughput = { direct_calls_per_s: rd, relay_calls_per_s: rr, gateway_calls_per_s: rg, ratio: rg / rd };
console.log(`20 in flight: ${rd.toFixed(0)} calls/s direct, ${rr.toFixed(0)} through the byte relay (${(100 * rr / rd).toFixed(0)} %), ${rg.toFixed(0)} through the gateway (${(100 * rg / rd).toFixed(0)} %)`);
writeFileSync(path.join(build, 'mcp_sdk_latency.json'), JSON.stringify(out, null, 2));

for (const c of Object.values(cases)) await c.close();
