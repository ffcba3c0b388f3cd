import { execFile } from 'node:child_process';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';

/**
 * The client and its MCP server as the package `svc-handoff`, whose manifest is
 * src/client/package.json: src/client and src/mcp compiled to ESM JavaScript with declarations,
 * source maps and declaration maps, the TypeScript they map to under src/, the manifest, the
 * client's README and the repository's LICENSE beside them, packed by `npm pack`. The service is not
 * in it: whatever the two folders import outside themselves stops the build.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
/** What the package runs: the client, and the command that serves MCP. Whatever they import is compiled with them. */
const ENTRY_POINTS = ['src/client/index.ts', 'src/mcp/cli.ts'];
/** The folders of src the package holds, laid out as in src, so mcp/ imports ../client/ in both. */
const PACKED_FOLDERS = ['client', 'mcp'];
/** The package's README is the client's; its licence is the repository's. */
const DOCUMENTS = [join(SRC, 'client', 'package.json'), join(SRC, 'client', 'README.md'), join(ROOT, 'LICENSE')];
/**
 * Where a map finds its TypeScript, from the map's folder (client/ or mcp/, one level down): the
 * sources are packed as src/client/ and src/mcp/, as in this checkout, so a debugger and an
 * editor's "go to definition" open the code itself rather than the compiled JavaScript or the
 * declarations.
 */
const SOURCE_ROOT = '../src/';

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
  // The checkout's settings (strict, NodeNext), emitting this time. With a sourceRoot, a map's
  // sources are named from rootDir (client/index.ts), under SOURCE_ROOT.
  return { ...parsed!.options, noEmit: false, declaration: true, sourceMap: true, declarationMap: true, sourceRoot: SOURCE_ROOT, outDir, rootDir: SRC };
}

/**
 * Compiles the package's folders into `outDir`, and copies the TypeScript it compiled to
 * `outDir/src` for the maps; throws on a type error or an import of anything outside them.
 */
export async function compilePackage(outDir: string): Promise<void> {
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
  for (const source of program.getSourceFiles().filter((file) => !file.isDeclarationFile && !file.fileName.includes(`${sep}node_modules${sep}`))) {
    const copy = join(outDir, 'src', relative(SRC, source.fileName));
    await mkdir(dirname(copy), { recursive: true });
    await copyFile(source.fileName, copy);
  }
}

/** Builds the package in `buildDir/package` and packs it into `buildDir`. */
export async function packClient(buildDir: string): Promise<PackedClient> {
  const staging = join(buildDir, 'package');
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await compilePackage(staging);
  for (const document of DOCUMENTS) await copyFile(document, join(staging, basename(document)));
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', buildDir], { cwd: staging });
  const [report] = JSON.parse(stdout) as [Omit<PackedClient, 'tarball'> & { filename: string }];
  return { tarball: join(buildDir, report.filename), name: report.name, version: report.version, files: report.files, size: report.size, unpackedSize: report.unpackedSize };
}
