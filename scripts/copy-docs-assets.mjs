#!/usr/bin/env node
// The last step of `npm run build` (after tsc): copies the /docs page's files (Swagger UI's) from the
// swagger-ui-dist development dependency into dist/http/docs/assets/, with their license files, so that the
// package serves the page without swagger-ui-dist installed (see src/http/docs/docs-assets.ts for why). The
// names and the place come from the built module itself, which reads them back at run time.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  builtDocsAssetsDir,
  DOCS_ASSET_FILES,
  DOCS_ASSET_LICENSE_FILES,
  swaggerUiDistDir,
} from '../dist/http/docs/docs-assets.js';

let from;
try {
  from = swaggerUiDistDir();
} catch {
  process.stderr.write(
    'copy-docs-assets: swagger-ui-dist is not installed; the build needs the development dependencies (npm ci)\n',
  );
  process.exit(1);
}
const to = builtDocsAssetsDir();
mkdirSync(to, { recursive: true });
for (const name of [...DOCS_ASSET_FILES, ...DOCS_ASSET_LICENSE_FILES]) copyFileSync(join(from, name), join(to, name));
