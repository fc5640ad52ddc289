// What the stdio gateway benchmarks share (mcp_sdk_latency.mjs,
// mcp_stdio_compare.mjs, mcp_gateway_icount.mjs): the official SDK's
// stdio client (1.32), server-filesystem serving a small project, the
// manifests they run the gateway with, and the one call they time --
// read_text_file of the project's file, checked for its text.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// The SDK's client classes and server-filesystem's entry point, from the
// folder where tests/mcp's package-lock.json is installed.
export async function loadSdk(nodeModules) {
  const esm = (p) => import(pathToFileURL(path.resolve(nodeModules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
  return {
    Client: (await esm('client/index.js')).Client,
    StdioClientTransport: (await esm('client/stdio.js')).StdioClientTransport,
    fsServer: path.resolve(nodeModules, '@modelcontextprotocol/server-filesystem/dist/index.js'),
  };
}

// A temporary folder with project/notes.txt and an empty manifest; removed
// when the process exits.
export function benchProject(prefix) {
  const work = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  process.on('exit', () => rmSync(work, { recursive: true, force: true }));
  const root = path.join(work, 'project');
  mkdirSync(root);
  const file = path.join(root, 'notes.txt');
  writeFileSync(file, 'hello from the benchmark\n');
  const empty = path.join(work, 'empty.json');
  writeFileSync(empty, JSON.stringify({ toolgate: 1, plugins: [] }));
  return { work, root, file, empty };
}

// The sample policy (samples/manifests/mcp-filesystem.json: policy,
// guard-paths, timeout, redact) with its project folder and plugin paths
// pointed at `project` and `plugins`, written as `name` in the work folder.
export function samplePolicy(project, plugins, name = 'mcp-filesystem.json') {
  const file = path.join(project.work, name);
  writeFileSync(file, readFileSync(path.join(repo, 'samples/manifests/mcp-filesystem.json'), 'utf8')
    .replaceAll('/home/me/project', project.root).replaceAll('../../plugins/', path.resolve(plugins) + '/'));
  return file;
}

// A connected client of the server `command args` starts.
export async function connect(sdk, command, args) {
  const transport = new sdk.StdioClientTransport({ command, args, stderr: 'ignore' });
  const client = new sdk.Client({ name: 'toolgate-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// The timed call.
export const readCall = (client, project) =>
  client.callTool({ name: 'read_text_file', arguments: { path: project.file } });

// Throws unless the call read the file.
export async function checkRead(client, project, name) {
  const r = await readCall(client, project);
  if (r.isError || !JSON.stringify(r.content).includes('hello from the benchmark'))
    throw new Error(`${name}: the read failed: ${JSON.stringify(r)}`);
}

// Times `op(client)` for each case, `rounds` times, in rounds: each round
// runs every case once, starting one case further on than the round before.
// A case measured right after its own server last ran answers faster than
// one whose processes slept while the others ran (a recently woken process
// is cheap to wake again): with a fixed order, the case that followed a
// `ping` of its own server looked 70 µs faster than the rest.  Rotating
// gives every case every position equally often.  Returns µs per case.
export async function interleavedRounds(cases, rounds, op) {
  const names = Object.keys(cases);
  const times = Object.fromEntries(names.map((k) => [k, []]));
  for (let r = 0; r < rounds; ++r)
    for (let i = 0; i < names.length; ++i) {
      const name = names[(r + i) % names.length];
      const t = process.hrtime.bigint();
      await op(cases[name]);
      times[name].push(Number(process.hrtime.bigint() - t) / 1000);
    }
  return times;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
