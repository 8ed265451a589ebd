// Builds plotly-clustlens.min.js: plotly.js (the release in package.json) with only the trace
// types in entry.js, bundled as plotly.js bundles itself (its esbuild-config.js), minified.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

const require = createRequire(import.meta.url);
const { environmentPlugin } = require('esbuild-plugin-environment');
const { glsl } = require('esbuild-plugin-glsl');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');

const version = JSON.parse(readFileSync(require.resolve('plotly.js/package.json'))).version;
const traces = [...readFileSync('entry.js', 'utf8').matchAll(/plotly\.js\/lib\/(\w+)'/g)]
  .map((m) => m[1]).filter((t) => t !== 'core');

await esbuild.build({
  entryPoints: ['entry.js'],
  outfile: 'plotly-clustlens.min.js',
  format: 'iife',
  globalName: 'Plotly',
  bundle: true,
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  banner: { js: `/** plotly.js v${version} (clustlens bundle: scatter,${traces.join(',')}) | MIT */` },
  plugins: [InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
  alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
  define: { global: 'window', 'define.amd': 'false' },
  target: 'es2016',
  logLevel: 'info',
});
