// Writes a Brotli (.br) and a gzip (.gz) copy next to every text or WebAssembly file of a
// built site, so a static server can send the compressed bytes as they are (nginx's
// gzip_static and brotli_static, Caddy's `precompressed`, or any server that maps the
// extension to Content-Encoding) instead of compressing on every request or not at all.
//
//   node scripts/precompress.mjs [DIR]
//
// Trunk runs it as a post-build hook (Trunk.toml) on the staged site, which it names in
// TRUNK_STAGING_DIR, and it then does nothing unless the build is a release build
// (TRUNK_PROFILE): debug builds are served uncompressed, since the strongest settings
// cost a few seconds per build. Run by hand, DIR defaults to dist/.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
    before += bytes.length;
    brotli += br.length;
    gzip += gz.length;
  }
  const kb = (n) => `${Math.round(n / 1024)} KB`;
  console.error(`precompress: ${dir}: ${kb(before)} -> ${kb(brotli)} brotli, ${kb(gzip)} gzip`);
}

const staging = process.env.TRUNK_STAGING_DIR;
if (process.argv[2]) precompress(process.argv[2]);
else if (!staging) precompress('dist');
else if (process.env.TRUNK_PROFILE === 'release') precompress(staging);
