// The files of the API reference page at /docs: Swagger UI's, never from a CDN, so the page works with
// no internet. Read once, when the service is built, never per request, from the first of:
//   1. the single executable's embedded assets (scripts/build-binary.mjs puts them there);
//   2. assets/ beside this module, which is dist/http/docs/assets/ in the package: `npm run build` copies
//      them there from swagger-ui-dist (scripts/copy-docs-assets.mjs). So the package needs no
//      swagger-ui-dist at run time, and it is a development dependency only: its own dependency runs an
//      analytics script at install time in the project that installs it, which a consumer must not get;
//   3. the swagger-ui-dist package in node_modules, when running from the sources (src/http/docs/assets/
//      does not exist): development and tests.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The renderer's files the page uses, by name (also their names under /docs/ and in the executable). */
export const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'] as const;
export type DocsAssetName = (typeof DOCS_ASSET_FILES)[number];

/** Swagger UI's license files, copied beside its files in the package: the Apache License asks that they travel with them. */
export const DOCS_ASSET_LICENSE_FILES = ['LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt'] as const;

/** Each file's bytes. */
export type DocsAssets = Record<DocsAssetName, Buffer>;

/** The single executable's embedded assets, when this runs as one. */
interface SeaAssets {
  isSea(): boolean;
  getRawAsset(name: string): ArrayBuffer;
}

/** Where the build puts the files: assets/ beside this module (dist/http/docs/assets/ once built). */
export function builtDocsAssetsDir(): string {
  return fileURLToPath(new URL('./assets/', import.meta.url));
}

/** The installed swagger-ui-dist package's directory (a development dependency); throws when it is not installed. */
export function swaggerUiDistDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** Reads the renderer's files: from the executable when it embeds them, else from the build's copy, else from node_modules. */
export function readDocsAssets(): DocsAssets {
  const sea = seaModule();
  if (sea?.isSea() === true) {
    return Object.fromEntries(DOCS_ASSET_FILES.map((name) => [name, Buffer.from(sea.getRawAsset(name))])) as DocsAssets;
  }
  const dir = docsAssetsDir();
  return Object.fromEntries(DOCS_ASSET_FILES.map((name) => [name, readFileSync(join(dir, name))])) as DocsAssets;
}

/** The build's copy when there is one, else swagger-ui-dist; a missing package says what to do. */
function docsAssetsDir(): string {
  const built = builtDocsAssetsDir();
  if (existsSync(join(built, DOCS_ASSET_FILES[0]))) return built;
  try {
    return swaggerUiDistDir();
  } catch {
    throw new Error(
      `the /docs page's files are missing: they are neither in ${built} (npm run build puts them there) nor in ` +
        'an installed swagger-ui-dist package (a development dependency); build the package again, or turn ' +
        'the page off (docs: false, --docs off)',
    );
  }
}

/** node:sea, present from Node 20.12 on; undefined where the runtime lacks it. */
function seaModule(): SeaAssets | undefined {
  try {
    return createRequire(import.meta.url)('node:sea') as SeaAssets;
  } catch {
    return undefined;
  }
}
