// Writes a Brotli (.br) and a gzip (.gz) copy next to every text or WebAssembly file of a
// built site, so a static server can send the compressed bytes as they are (nginx's
// gzip_static and brotli_static, Caddy's `precompressed`, or any server that maps the
// extension to Content-Encoding) instead of compressing on every request or not at all.
//
//   node scripts/precompress.mjs [DIR]
//
// It also makes the site light on a static server that knows nothing of compression
// (`python3 -m http.server`, a bare bucket): the page and the worker fetch the gzip copy
// of their .wasm and unpack it in the browser (DecompressionStream; www/boot.js,
// www/worker_loader.js). So it points index.html's preload of the page's .wasm at the
// .gz, names the .gz on boot.js's tag (data-proxima-wasm-gz) with the raw module's hash
// beside it for browsers without DecompressionStream (data-proxima-wasm-integrity), and
// writes the worker's .gz and its hashes into worker_loader.js (its `const PACKED`). Each
// .gz is checked against two SHA-384 hashes, its own and the raw module's: a server that
// sends the .gz itself with `Content-Encoding: gzip` has the browser unpack it, and the
// body is then the raw module.
//
// Trunk runs it as a post-build hook (Trunk.toml) on the staged site, which it names in
// TRUNK_STAGING_DIR, and it then does nothing unless the build is a release build
// (TRUNK_PROFILE): debug builds are served uncompressed, since the strongest settings
// cost a few seconds per build. Run by hand, DIR defaults to dist/.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const COMPRESSIBLE = /\.(html|js|mjs|css|wasm|svg|json|txt|map)$/;
// Below this size the headers of a compressed response outweigh what it saves.
const MIN_BYTES = 512;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

/** Replaces what `pattern` matches in `text` by `replacement`, or fails: a build must not ship half-rewritten. */
function replaceOnce(text, pattern, replacement, what) {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`)) ?? [];
  if (matches.length !== 1) throw new Error(`precompress: expected one ${what}, found ${matches.length}`);
  return text.replace(pattern, replacement);
}

/**
 * Has the page and the worker fetch the gzip copy of their .wasm (see the top of this
 * file): writes each .gz (the same bytes the loop below writes) and rewrites index.html
 * and worker_loader.js to name it.
 */
function packWasm(dir) {
  const packed = (name) => {
    const raw = readFileSync(join(dir, name));
    const gz = gzipSync(raw, { level: 9 });
    writeFileSync(join(dir, `${name}.gz`), gz);
    return { raw: sri(raw), both: `${sri(gz)} ${sri(raw)}` };
  };

  const indexPath = join(dir, 'index.html');
  let index = readFileSync(indexPath, 'utf8');
  const page = index.match(/data-proxima-wasm="([^"]+)"/)?.[1];
  if (!page) throw new Error('precompress: no data-proxima-wasm in index.html');
  const pageName = basename(page);
  const hashes = packed(pageName);
  const escaped = page.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  index = replaceOnce(
    index,
    new RegExp(`<link rel="preload" href="${escaped}"[^>]*>`),
    `<link rel="preload" href="${page}.gz" crossorigin="anonymous" integrity="${hashes.both}" as="fetch">`,
    `preload of ${page}`,
  );
  index = replaceOnce(
    index,
    /data-proxima-wasm="([^"]+)"/,
    `data-proxima-wasm="$1" data-proxima-wasm-gz="$1.gz" data-proxima-wasm-integrity="${hashes.raw}"`,
    'data-proxima-wasm',
  );
  writeFileSync(indexPath, index);

  const loaderPath = join(dir, 'worker_loader.js');
  const worker = packed('worker_bg.wasm');
  const loader = replaceOnce(
    readFileSync(loaderPath, 'utf8'),
    /^const PACKED = null;$/m,
    `const PACKED = ${JSON.stringify({ url: './worker_bg.wasm.gz', integrity: worker.both })};`,
    '`const PACKED = null;` in worker_loader.js',
  );
  writeFileSync(loaderPath, loader);
}

function precompress(dir) {
  let before = 0;
  let brotli = 0;
  let gzip = 0;
  for (const path of files(dir).filter((p) => COMPRESSIBLE.test(p)).sort()) {
    const bytes = readFileSync(path);
    if (bytes.length < MIN_BYTES) continue;
    const br = brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    });
    const gz = gzipSync(bytes, { level: 9 });
    writeFileSync(`${path}.br`, br);
    writeFileSync(`${path}.gz`, gz);
    // The module's Brotli copy again, as the copy of its .gz: a server configured as
    // above that is asked for FILE.wasm.gz (what boot.js and worker_loader.js fetch) and
    // accepts br sends FILE.wasm.gz.br with `Content-Encoding: br`, the browser unpacks
    // it, and the loaders take the raw module it gives (its hash is among the .gz's), so
    // such a server still sends Brotli's smaller bytes rather than gzip's.
    if (path.endsWith('.wasm')) writeFileSync(`${path}.gz.br`, br);
    before += bytes.length;
    brotli += br.length;
    gzip += gz.length;
  }
  const kb = (n) => `${Math.round(n / 1024)} KB`;
  console.error(`precompress: ${dir}: ${kb(before)} -> ${kb(brotli)} brotli, ${kb(gzip)} gzip`);
}

const staging = process.env.TRUNK_STAGING_DIR;
// Run by hand on a site built before, whose index.html names the .gz already, it only
// writes the compressed copies again.
const build = (dir) => {
  if (!readFileSync(join(dir, 'index.html'), 'utf8').includes('data-proxima-wasm-gz=')) packWasm(dir);
  precompress(dir);
};
if (process.argv[2]) build(process.argv[2]);
else if (!staging) build('dist');
else if (process.env.TRUNK_PROFILE === 'release') build(staging);
