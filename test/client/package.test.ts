import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 * (`npm run pack:client`), installed by npm from its tarball into a fresh project, then its worked
 * example and its MCP server (`npx svc-handoff mcp`) run from that project against the real service.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const { t } = useTestApp(listeningApp);
let folder: string;
let packed: PackedClient;
/** The agent developer's project, with the package installed. */
let project: string;

/** npm as a developer runs it in their project: none of the variables `npm test` sets for this checkout (its prefix among them). */
async function npm(args: string[], cwd: string): Promise<void> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  await promisify(execFile)('npm', args, { cwd, env });
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'svc-package-'));
  packed = await packClient(folder);
  project = join(folder, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'an-agent', private: true, type: 'module' }));
  // Dependencies come from the registry, through npm's cache when it holds them.
  await npm(['install', packed.tarball, '--prefer-offline', '--no-audit', '--no-fund'], project);
});

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

it('packs the client and its MCP server alone: compiled JavaScript with declarations, under a manifest that can be published', async () => {
  const paths = packed.files.map((file) => file.path).sort();
  for (const path of paths) expect(path).toMatch(/^(package\.json|client\/[a-z]+\.(js|d\.ts)|mcp\/[a-z]+\.js)$/);
  expect(paths).toEqual(expect.arrayContaining(['client/index.js', 'client/index.d.ts', 'client/openapi.d.ts', 'mcp/cli.js', 'mcp/server.js']));

  const manifest = JSON.parse(await readFile(join(project, 'node_modules', 'svc-handoff', 'package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest).not.toHaveProperty('private');
  expect(manifest).toMatchObject({ name: 'svc-handoff', version: packed.version, license: expect.any(String), type: 'module', engines: { node: '>=20' } });
  expect(manifest).toMatchObject({ types: './client/index.d.ts', bin: { 'svc-handoff': 'mcp/cli.js' } });
  const client = { types: './client/index.d.ts', default: './client/index.js' };
  expect(manifest.exports).toEqual({ '.': client, './client': client });
});

it('runs the worked example against the installed package: type-checked against its declarations, answered through the link, receipt verified', async () => {
  // The example as a developer would copy it, compiled beside their node_modules: its import of
  // `svc-handoff/client` resolves to the installed package, whose declarations are checked too
  // (no skipLibCheck), down to the dependencies they name.
  const source = join(project, 'agent.ts');
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

  await runWorkedExample(t, { key: t.ctx.config.ownerKey!, workspaceId: 'wks_operator' }, ['agent.js'], project);
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
