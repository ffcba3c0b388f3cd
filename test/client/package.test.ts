import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packClient, type PackedClient } from '../../scripts/client-package.js';
import { useTestApp } from '../support/lifecycle.js';
import { answerThroughLink, listeningApp, runWorkedExample } from './support.js';

/**
 * The package an agent's developer installs, as they get it: packed from this checkout
 * (`npm run pack:client`), installed by npm from its tarball into a project `npm init -y` made
 * (CommonJS, as npm makes it), then the package README's worked example, copied out of the README,
 * and its MCP server (`npx svc-handoff mcp`) run from that project against the real service.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE_README = join(ROOT, 'src', 'client', 'README.md');

/** The README's worked example: the code block after its marker, which names the file to save it as. */
async function workedExample(): Promise<{ file: string; code: string }> {
  const found = /^<!-- worked example: (\S+) -->\n```js\n([\s\S]*?)^```$/m.exec(await readFile(PACKAGE_README, 'utf8'));
  if (!found) throw new Error(`${PACKAGE_README} has no worked example under its marker.`);
  return { file: found[1]!, code: found[2]! };
}

const { t } = useTestApp(listeningApp);
let folder: string;
let packed: PackedClient;
/** The agent developer's project, with the package installed. */
let project: string;

/** A command as a developer runs it in their project: none of the variables `npm test` sets for this checkout (npm's prefix among them). */
async function run(command: string, args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  return promisify(execFile)(command, args, { cwd, env });
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'svc-package-'));
  packed = await packClient(folder);
  project = join(folder, 'project');
  await mkdir(project);
  await run('npm', ['init', '-y'], project);
  // Dependencies come from the registry, through npm's cache when it holds them.
  await run('npm', ['install', packed.tarball, '--prefer-offline', '--no-audit', '--no-fund'], project);
});

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

it('packs the client and its MCP server alone: compiled JavaScript with declarations and maps, the TypeScript they map to, README and LICENSE, under a manifest that can be published', async () => {
  const paths = packed.files.map((file) => file.path).sort();
  for (const path of paths) expect(path).toMatch(/^(package\.json|README\.md|LICENSE|client\/[a-z]+\.(js|d\.ts)(\.map)?|mcp\/[a-z]+\.js(\.map)?|src\/(client|mcp)\/[a-z]+\.ts)$/);
  expect(paths).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'client/index.js', 'client/index.d.ts', 'client/openapi.d.ts', 'mcp/cli.js', 'mcp/server.js']));
  const installed = join(project, 'node_modules', 'svc-handoff');
  expect(await readFile(join(installed, 'README.md'), 'utf8')).toBe(await readFile(PACKAGE_README, 'utf8'));
  expect(await readFile(join(installed, 'LICENSE'), 'utf8')).toBe(await readFile(join(ROOT, 'LICENSE'), 'utf8'));

  // Every JavaScript file has its source map and every declaration its declaration map, each
  // naming TypeScript the package holds.
  const maps = paths.filter((path) => path.endsWith('.js') || path.endsWith('.d.ts')).map((path) => `${path}.map`);
  expect(paths).toEqual(expect.arrayContaining(maps));
  for (const map of maps) {
    const { sources, sourceRoot } = JSON.parse(await readFile(join(installed, map), 'utf8')) as { sources: string[]; sourceRoot?: string };
    expect(sources.map((source) => posix.join(posix.dirname(map), sourceRoot ?? '', source)), map).toEqual([map.replace(/^(client|mcp)\/([a-z]+)\..*$/, 'src/$1/$2.ts')]);
  }

  const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest).not.toHaveProperty('private');
  expect(manifest).toMatchObject({ name: 'svc-handoff', version: packed.version, license: 'MIT', type: 'module', engines: { node: '>=20.19' } });
  expect(manifest).toMatchObject({ repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\//) }, homepage: expect.stringMatching(/^https:\/\//) });
  expect(manifest).toMatchObject({ types: './client/index.d.ts', bin: { 'svc-handoff': 'mcp/cli.js' } });
  const client = { types: './client/index.d.ts', default: './client/index.js' };
  expect(manifest.exports).toEqual({ '.': client, './client': client });
});

it('is required from the CommonJS project as the README shows (Node 20.19 and later, as its engines say), and its command answers --help with 0', async () => {
  const required = await run(process.execPath, ['-e', "const { createClient } = require('svc-handoff'); console.log(typeof createClient);"], project);
  expect(required).toEqual({ stdout: 'function\n', stderr: '' });
  expect(await readFile(PACKAGE_README, 'utf8')).toContain("const { createClient } = require('svc-handoff');");

  const help = await run(join(project, 'node_modules', '.bin', 'svc-handoff'), ['--help'], project);
  expect(help.stdout).toMatch(/^usage: svc-handoff mcp /);
  await expect(run(join(project, 'node_modules', '.bin', 'svc-handoff'), ['serve'], project)).rejects.toMatchObject({ code: 2 });
});

it("runs the README's worked example, copied out of the README, as the README says: `node agent.mjs` in the project `npm init -y` made", async () => {
  const { file, code } = await workedExample();
  const readme = await readFile(PACKAGE_README, 'utf8');
  for (const step of ['npm init -y', 'npm install svc-handoff', `SVC_API_KEY=svc_owner_... node ${file}`]) expect(readme).toContain(step);
  expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8'))).not.toHaveProperty('type', 'module');

  await writeFile(join(project, file), code);
  await runWorkedExample(t, { key: t.ctx.config.ownerKey!, workspaceId: 'wks_operator' }, [file], project);
});

it("runs the checkout's worked example against the installed package: type-checked against its declarations, answered through the link, receipt verified", async () => {
  // The example as a developer would copy it, compiled beside their node_modules: its import of
  // `svc-handoff/client` resolves to the installed package, whose declarations are checked too
  // (no skipLibCheck), down to the dependencies they name. Named .mts, as the README says, since
  // the project is CommonJS and the example awaits at the top level.
  const source = join(project, 'agent.mts');
  await copyFile(join(ROOT, 'examples', 'agent.ts'), source);
  const program = ts.createProgram([source], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    outDir: project,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules', '@types')],
  });
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  expect(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (name) => name, getCurrentDirectory: () => project, getNewLine: () => '\n' })).toBe('');
  expect(program.getSourceFiles().map((file) => file.fileName)).toContain(join(project, 'node_modules', 'svc-handoff', 'client', 'index.d.ts'));

  await runWorkedExample(t, { key: t.ctx.config.ownerKey!, workspaceId: 'wks_operator' }, ['agent.mjs'], project);
  // A whole type check, declarations included, on two cores shared with the rest of the suite.
}, 120_000);

it('serves MCP over stdio with `npx svc-handoff mcp` from the project: lists the tools, asks, and reads the answer with its receipt', async () => {
  const transport = new StdioClientTransport({
    command: 'npx',
    // --no: the installed package or nothing, never one fetched from the registry.
    args: ['--no', 'svc-handoff', 'mcp'],
    cwd: project,
    env: { ...getDefaultEnvironment(), SVC_URL: t.ctx.config.publicOrigin, SVC_API_KEY: t.ctx.config.ownerKey! },
    stderr: 'pipe',
  });
  const agent = new Client({ name: 'test-agent', version: '1.0.0' });
  const protocolErrors: Error[] = [];
  agent.onerror = (error) => protocolErrors.push(error);
  await agent.connect(transport);
  try {
    expect(agent.getServerVersion()).toMatchObject({ name: 'svc-handoff', version: packed.version });
    expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(['ask_human', 'get_answer', 'list_events', 'complete_session']);

    const asked = await agent.callTool({ name: 'ask_human', arguments: { title: 'Ship it?', fields: [], actions: ['Ship', 'Wait'] } });
    const { session_id, url } = asked.structuredContent as { session_id: string; url: string };
    expect((await answerThroughLink(url, 'ship')).status).toBe(200);
    const answer = await agent.callTool({ name: 'get_answer', arguments: { session_id } });
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ status: 'answered', action: 'ship', data: {}, receipt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) });
    expect(protocolErrors).toEqual([]);
  } finally {
    await agent.close();
  }
});
