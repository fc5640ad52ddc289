// Two or more builds of the stdio gateway side by side: the official MCP
// SDK's stdio client (1.32) calls server-filesystem's read_text_file
// directly and through `toolgate mcp` of each build, with an empty
// manifest and with the sample filesystem policy (each build with its own
// plugins), round by round interleaved, so a change in the machine's speed
// touches every case alike.  For measuring a change to the gateway or the
// plugins against the build before it (README "The MCP gateway, with a
// real client").  Wall clock, p50.
//
// usage: node tests/bench/mcp_stdio_compare.mjs NODE_MODULES ROUNDS BUILD_DIR...
//   NODE_MODULES: a folder where tests/mcp's package-lock.json is installed
//   BUILD_DIR: Release build trees (host/toolgate and plugins/ in each),
//              for instance build/bench and a worktree's build/bench
import path from 'node:path';
import {
  benchProject, checkRead, connect, interleavedRounds, loadSdk, median, readCall, samplePolicy,
} from './mcp_stdio_support.mjs';

const [nodeModules, roundsArg, ...builds] = process.argv.slice(2);
if (!nodeModules || !roundsArg || builds.length === 0) {
  console.error('usage: node mcp_stdio_compare.mjs NODE_MODULES ROUNDS BUILD_DIR...');
  process.exit(2);
}
const rounds = Number(roundsArg);
const sdk = await loadSdk(nodeModules);
const { fsServer } = sdk;
const project = benchProject('tg-mcp-stdio-compare-');
const { root, empty } = project;

const node = process.execPath;
const cases = { direct: await connect(sdk, node, [fsServer, root]) };
for (const [i, build] of builds.entries()) {
  const toolgate = path.resolve(build, 'host', 'toolgate');
  const policy = samplePolicy(project, path.resolve(build, 'plugins'), `policy-${i}.json`);
  cases[`${build}, empty manifest`] = await connect(sdk, toolgate, ['mcp', empty, '--', node, fsServer, root]);
  cases[`${build}, sample policy`] = await connect(sdk, toolgate, ['mcp', policy, '--', node, fsServer, root]);
}

const call = (c) => readCall(c, project);
for (const [name, c] of Object.entries(cases)) await checkRead(c, project, name);
for (let i = 0; i < 200; ++i) for (const c of Object.values(cases)) await call(c);
const times = await interleavedRounds(cases, rounds, call);
const base = median(times.direct);
console.log(`tools/call read_text_file, SDK stdio client, ${rounds} interleaved rounds (p50, wall clock):`);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(`  ${name.padEnd(48)} ${m.toFixed(1).padStart(8)} µs  ${name === 'direct' ? 'baseline' : `+${(m - base).toFixed(1)} µs`}`);
}
for (const c of Object.values(cases)) await c.close();
