import { execFile } from 'node:child_process';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

/**
 * The client and its MCP server as the package `svc-handoff`, whose manifest is
 * src/client/package.json: src/client and src/mcp compiled to ESM JavaScript with declarations,
 * the manifest beside them, packed by `npm pack`. The service is not in it: whatever the two folders
 * import outside themselves stops the build.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
/** What the package runs: the client, and the command that serves MCP. Whatever they import is compiled with them. */
const ENTRY_POINTS = ['src/client/index.ts', 'src/mcp/cli.ts'];
/** The folders of src the package holds, laid out as in src, so mcp/ imports ../client/ in both. */
const PACKED_FOLDERS = ['client', 'mcp'];
const MANIFEST = join(SRC, 'client', 'package.json');

/** Where `npm run pack:client` builds: git-ignored. */
export const BUILD = join(ROOT, 'build');

export interface PackedFile {
  path: string;
  size: number;
}

/** What `npm pack --json` reports of the tarball. */
export interface PackedClient {
  tarball: string;
  name: string;
  version: string;
  files: PackedFile[];
  /** Bytes of the .tgz, and of its files unpacked. */
  size: number;
  unpackedSize: number;
}

const formatHost: ts.FormatDiagnosticsHost = { getCanonicalFileName: (name) => name, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };

function compilerOptions(outDir: string): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.formatDiagnostics([diagnostic], formatHost));
    },
  });
  // The checkout's settings (strict, NodeNext), emitting this time.
  return { ...parsed!.options, noEmit: false, declaration: true, outDir, rootDir: SRC };
}

/** Compiles the package's folders into `outDir`; throws on a type error or an import of anything outside them. */
export function compilePackage(outDir: string): void {
  const program = ts.createProgram(
    ENTRY_POINTS.map((entry) => join(ROOT, entry)),
    compilerOptions(outDir),
  );
  const packed = PACKED_FOLDERS.map((folder) => join(SRC, folder) + sep);
  const outside = program
    .getSourceFiles()
    .map((file) => file.fileName)
    .filter((name) => !name.includes(`${sep}node_modules${sep}`) && !packed.some((folder) => name.startsWith(folder)));
  if (outside.length > 0) throw new Error(`The package would carry files outside src/client and src/mcp: ${outside.map((name) => relative(ROOT, name)).join(', ')}`);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0 || emitted.emitSkipped) throw new Error(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
}

/** Builds the package in `buildDir/package` and packs it into `buildDir`. */
export async function packClient(buildDir: string): Promise<PackedClient> {
  const staging = join(buildDir, 'package');
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  compilePackage(staging);
  await copyFile(MANIFEST, join(staging, 'package.json'));
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', buildDir], { cwd: staging });
  const [report] = JSON.parse(stdout) as [Omit<PackedClient, 'tarball'> & { filename: string }];
  return { tarball: join(buildDir, report.filename), name: report.name, version: report.version, files: report.files, size: report.size, unpackedSize: report.unpackedSize };
}
