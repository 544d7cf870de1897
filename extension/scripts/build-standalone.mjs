// Bundles the standalone viewer for passviz's offline HTML pages:
//   src/standalone.ts  -> ../passviz/static/viewer.js  (one minified IIFE, global `passviz`)
//   style/viewer.css   -> ../passviz/static/viewer.css
// The Python side reads both with importlib.resources and inlines them into
// one page, so nothing here may load anything at run time: every asset is
// inlined and a URL left in the CSS fails the build.
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(here, '..', 'passviz', 'static');
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  logLevel: 'warning',
  platform: 'browser',
  target: ['es2020'],
  // Inline every asset a stylesheet or module pulls in.
  loader: { '.svg': 'dataurl', '.png': 'dataurl', '.woff2': 'dataurl', '.woff': 'dataurl', '.ttf': 'dataurl' }
};

await build({
  ...common,
  entryPoints: [join(here, 'src', 'standalone.ts')],
  outfile: join(out, 'viewer.js'),
  format: 'iife',
  globalName: 'passviz',
  define: { 'process.env.NODE_ENV': '"production"' },
  // Licence headers of the bundled libraries go to one block at the end.
  legalComments: 'eof'
});

await build({
  ...common,
  entryPoints: [join(here, 'style', 'viewer.css')],
  outfile: join(out, 'viewer.css')
});

const css = readFileSync(join(out, 'viewer.css'), 'utf8');
const remote = css.match(/url\(\s*['"]?(?:https?:)?\/\//i) || css.match(/@import\s+(?:url\()?\s*['"]?(?:https?:)?\/\//i);
if (remote) {
  console.error(`viewer.css would load a remote resource: ${remote[0]}`);
  process.exit(1);
}
