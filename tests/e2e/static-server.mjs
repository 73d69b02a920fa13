// A tiny static file server for the end-to-end tests and the measuring scripts: serves one directory on a free
// port of 127.0.0.1, GET and HEAD only, with the content types the site needs
// (`application/wasm` above all, or the browser refuses to compile the module
// streaming). No directory listings: a directory answers with its index.html.
// Like nginx's brotli_static/gzip_static: when the request accepts br (or gzip) and the
// release build wrote FILE.br (or FILE.gz) next to FILE, that copy is sent with
// Content-Encoding, so tests and measurements load the bytes a real server would send.
// With `{ precompressed: false }` it is a plain static server instead (as
// `python3 -m http.server`): every file as it is, never a Content-Encoding.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, relative, resolve, isAbsolute } from 'node:path';

const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** Maps a URL path to a file under `root`, or null if it points outside of it. */
function fileFor(root, urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = resolve(join(root, path));
  const rel = relative(root, file);
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return file;
}

/** The precompressed copy of `file` the request accepts, as [encoding, path], or null. */
async function precompressed(file, req) {
  const accepted = String(req.headers['accept-encoding'] ?? '')
    .split(',')
    .map((part) => part.trim().split(';'))
    .filter(([, q]) => !q || Number(q.trim().replace(/^q=/, '')) > 0)
    .map(([name]) => name.trim().toLowerCase());
  for (const [encoding, ext] of [['br', '.br'], ['gzip', '.gz']]) {
    if (!accepted.includes(encoding)) continue;
    try {
      if ((await stat(file + ext)).isFile()) return [encoding, file + ext];
    } catch {
      // No such copy: try the next encoding, else send the file as it is.
    }
  }
  return null;
}

async function respond(root, req, res, usePrecompressed) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  const url = new URL(req.url, 'http://localhost');
  let file = fileFor(root, url.pathname);
  if (file === null) {
    res.writeHead(404).end();
    return;
  }
  try {
    const info = await stat(file);
    if (info.isDirectory()) {
      if (!url.pathname.endsWith('/')) {
        // Like any static server: /proxima -> /proxima/, so relative URLs resolve.
        res.writeHead(301, { Location: `${url.pathname}/${url.search}` }).end();
        return;
      }
      file = join(file, 'index.html');
    }
    const copy = usePrecompressed ? await precompressed(file, req) : null;
    const body = await readFile(copy ? copy[1] : file);
    res.writeHead(200, {
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': body.length,
      'Cache-Control': 'no-store',
      Vary: 'Accept-Encoding',
      ...(copy ? { 'Content-Encoding': copy[0] } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (err) {
    res.writeHead(err.code === 'ENOENT' || err.code === 'ENOTDIR' ? 404 : 500).end();
  }
}

/**
 * Serves `root` on 127.0.0.1, on `port` or else a free port. Resolves to `{ origin, close }`; `close()` drops open connections and resolves
 * once the server has stopped. `precompressed: false` never sends the .br or .gz copies
 * in place of a file (a plain static server).
 */
export async function serveDirectory(root, port = 0, { precompressed: usePrecompressed = true } = {}) {
  const absRoot = resolve(root);
  const server = createServer((req, res) => {
    respond(absRoot, req, res, usePrecompressed).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', ok);
  });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
