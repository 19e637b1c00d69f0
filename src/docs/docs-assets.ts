// The files of the API reference page at /docs: Swagger UI's from the installed swagger-ui-dist package
// (never a CDN, so the page works with no internet), or, in the single executable, from the assets
// embedded in it under the same names. Read once, when the service is built, never per request.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The renderer's files the page uses, by name (also their names under /docs/ and in the executable). */
export const DOCS_ASSET_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'] as const;
export type DocsAssetName = (typeof DOCS_ASSET_FILES)[number];

/** Each file's bytes. */
export type DocsAssets = Record<DocsAssetName, Buffer>;

/** The single executable's embedded assets, when this runs as one. */
interface SeaAssets {
  isSea(): boolean;
  getRawAsset(name: string): ArrayBuffer;
}

/** Reads the renderer's files: from the executable when it embeds them, else from node_modules. */
export function readDocsAssets(): DocsAssets {
  const sea = seaModule();
  if (sea?.isSea() === true) {
    return Object.fromEntries(DOCS_ASSET_FILES.map((name) => [name, Buffer.from(sea.getRawAsset(name))])) as DocsAssets;
  }
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve('swagger-ui-dist/package.json'));
  return Object.fromEntries(DOCS_ASSET_FILES.map((name) => [name, readFileSync(join(dir, name))])) as DocsAssets;
}

/** node:sea, present from Node 20.12 on; undefined where the runtime lacks it. */
function seaModule(): SeaAssets | undefined {
  try {
    return createRequire(import.meta.url)('node:sea') as SeaAssets;
  } catch {
    return undefined;
  }
}
