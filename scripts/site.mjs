// Builds the web app into a static site, and serves it while rebuilding on changes.
//
//   node scripts/site.mjs build [--release] [--dist DIR]   # dist/ by default
//   node scripts/site.mjs serve [--release] [--port N]      # http://127.0.0.1:8080/
//   node scripts/site.mjs compile [--release]               # only the cargo step of a build
//
// scripts/serve.sh and scripts/test.sh run it after scripts/ensure-tools.sh has put
// wasm-bindgen (the version in Cargo.lock) and wasm-opt (node_modules/.bin) in place.
//
// This does the four things the site needs and nothing else: build the page and the
// worker for wasm32 (Cargo.toml has their profiles), run wasm-bindgen on each (and
// wasm-opt -Os in a release build), give the page's files content-hashed names with
// Subresource Integrity in index.html, and in a release build write a .br and a .gz
// copy of every file worth compressing (scripts/precompress.mjs). It replaces Trunk,
// whose installation from crates.io cost 391 CPU-seconds of a cold set-up that has to
// fit in 15 minutes on 2 cores (README, "Set-up on a fresh machine").
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, watch, writeFileSync,
} from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../tests/e2e/static-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WWW = join(ROOT, 'www');
const WASM_TARGET = 'wasm32-unknown-unknown';

// The two programs of the site. The page gets hashed names (index.html names them, so a
// browser never mixes an old module with a new page); the worker keeps fixed names,
// because the app starts it by the URL ./worker_loader.js (src/browser/worker.rs). In a
// release build the page is built for size and the worker, which runs the simulations,
// for speed, without the page's `app` feature (yew and the rest, Cargo.toml).
const PAGE = { bin: 'proxima-web', profile: 'wasm-page', bindgen: 'web', hashed: true, cargoArgs: [] };
const WORKER = {
  bin: 'worker',
  profile: 'wasm-release',
  bindgen: 'no-modules',
  hashed: false,
  cargoArgs: ['--no-default-features'],
};

/** Runs a command with the output shown; resolves to its stdout when `capture` is set. */
function run(command, args, { capture = false, env = {} } = {}) {
  return new Promise((ok, fail) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let out = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    child.on('error', (err) =>
      fail(new Error(err.code === 'ENOENT' ? `${command} is not installed: run scripts/ensure-tools.sh` : err.message)),
    );
    child.on('close', (code, signal) =>
      code === 0 ? ok(out) : fail(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

/**
 * Builds `bins` in one cargo invocation and returns the .wasm file of each, by binary
 * name, from cargo's own report (so a configured target directory is honoured).
 */
async function cargoBuild(bins, { profile, cargoArgs = [], targetDir = null }) {
  const args = ['build', '--target', WASM_TARGET, '-p', 'proxima-web'];
  args.push('--message-format=json-render-diagnostics');
  args.push(...(profile ? ['--profile', profile] : []), ...cargoArgs);
  for (const bin of bins) args.push('--bin', bin);
  const env = targetDir ? { CARGO_TARGET_DIR: targetDir } : {};
  const report = await run('cargo', args, { capture: true, env });
  const wasm = {};
  for (const line of report.split('\n')) {
    if (!line.startsWith('{')) continue;
    const message = JSON.parse(line);
    if (message.reason === 'compiler-artifact' && bins.includes(message.target.name) && message.executable) {
      wasm[message.target.name] = message.executable;
    }
  }
  for (const bin of bins) if (!wasm[bin]) throw new Error(`cargo reported no .wasm file for ${bin}`);
  return wasm;
}

/**
 * The .wasm file of the page and of the worker. A debug build compiles both in one cargo
 * run (the worker then has the `app` feature too, which costs it nothing but size), so a
 * rebuild while serving compiles the shared code once. A release build compiles them side
 * by side, the worker in a target directory of its own: their profiles differ, so they
 * share no compiled crate anyway, and each ends in a single-threaded link-time
 * optimisation that leaves the other core to the other build.
 */
async function compile(release) {
  if (!release) return cargoBuild([PAGE.bin, WORKER.bin], {});
  const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, 'target');
  // Both run to their end even if one fails, so that no cargo is left running.
  const builds = await Promise.allSettled([
    cargoBuild([PAGE.bin], PAGE),
    cargoBuild([WORKER.bin], { ...WORKER, targetDir: join(target, 'worker') }),
  ]);
  const failed = builds.find((b) => b.status === 'rejected');
  if (failed) throw failed.reason;
  return { ...builds[0].value, ...builds[1].value };
}

/** The first 16 hex digits of the SHA-256 of `bytes`: a file name's content hash. */
const shortHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
const integrity = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

/**
 * wasm-bindgen's module and glue for one program into `stage`, then wasm-opt in a
 * release build. Returns the names it wrote, keyed by the names index.html uses.
 */
async function bindgen(program, wasmFile, stage, release) {
  const name = program.hashed ? `${program.bin}-${shortHash(readFileSync(wasmFile))}` : program.bin;
  const target = `--target=${program.bindgen}`;
  await run('wasm-bindgen', [target, '--no-typescript', `--out-dir=${stage}`, `--out-name=${name}`, wasmFile]);
  const module = join(stage, `${name}_bg.wasm`);
  if (release) {
    // -Os: -O3 was within the noise for the worker's speed (docs/PERFORMANCE.md).
    // binaryen@132 from npm; Debian's is too old to read the module.
    const wasmOpt = join(ROOT, 'node_modules', '.bin', 'wasm-opt');
    await run(wasmOpt, ['-Os', `--output=${module}`, module]);
  }
  if (program.bindgen === 'no-modules') {
    // What the app starts as a worker: loads the glue, then the module next to it.
    writeFileSync(
      join(stage, `${program.bin}_loader.js`),
      `importScripts("./${name}.js");wasm_bindgen({ module_or_path: "./${name}_bg.wasm" });\n`,
    );
  }
  return { [`${program.bin}.js`]: `${name}.js`, [`${program.bin}_bg.wasm`]: `${name}_bg.wasm` };
}

/**
 * www/index.html with every local file it names replaced by the built file's name (with
 * ./ in front, so the site works under any sub-path), a Subresource Integrity hash on
 * every <link> to one but a preload, and no comments. A name that is neither built nor
 * in www/ is an error, not a broken page.
 */
function renderIndex(names, stage) {
  // Its comments are for whoever edits it, not for every visitor.
  const html = readFileSync(join(WWW, 'index.html'), 'utf8').replace(/[ \t]*<!--[\s\S]*?-->\n?/g, '');
  const ATTRIBUTE = /\b(href|src|data-proxima-js|data-proxima-wasm)="([^"]*)"/g;
  const rename = (attr, value) => {
    if (/^(?:[a-z]+:|#|\/)/i.test(value)) return `${attr}="${value}"`;
    const built = names[value];
    if (!built) throw new Error(`www/index.html: ${attr}="${value}" names no file of the site`);
    return `${attr}="./${built}"`;
  };
  return html.replace(/<(link|script)\b[^>]*>/g, (tag, element) => {
    let file = null;
    const renamed = tag.replace(ATTRIBUTE, (_, attr, value) => {
      const out = rename(attr, value);
      if (attr === 'href' && element === 'link' && names[value]) file = names[value];
      return out;
    });
    // Not on rel=preload: Chromium ignores integrity there, and says so in the console.
    if (!file || / integrity=/.test(renamed) || /\brel="preload"/.test(renamed)) return renamed;
    return renamed.replace(/\s*>$/, ` integrity="${integrity(readFileSync(join(stage, file)))}">`);
  });
}

/** Builds the site into `dist` (replaced only once the new one is complete). */
export async function build({ release = false, dist = join(ROOT, 'dist') } = {}) {
  const started = Date.now();
  const stage = `${dist}.staging`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const wasm = await compile(release);
  const [pageNames, workerNames] = await Promise.all([
    bindgen(PAGE, wasm[PAGE.bin], stage, release),
    bindgen(WORKER, wasm[WORKER.bin], stage, release),
  ]);
  const names = { ...pageNames, ...workerNames };
  for (const file of readdirSync(WWW)) {
    if (file === 'index.html') continue;
    const bytes = readFileSync(join(WWW, file));
    // boot.js keeps its name: it is the one script index.html starts, and carries no
    // state a stale copy could mismatch (the page's names come in its data attributes).
    const ext = extname(file);
    const out = file === 'boot.js' ? file : `${basename(file, ext)}-${shortHash(bytes)}${ext}`;
    copyFileSync(join(WWW, file), join(stage, out));
    names[file] = out;
  }
  writeFileSync(join(stage, 'index.html'), renderIndex(names, stage));
  if (release) await run(process.execPath, [join(ROOT, 'scripts', 'precompress.mjs'), stage]);
  rmSync(dist, { recursive: true, force: true });
  renameSync(stage, dist);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.error(`site: ${release ? 'release' : 'debug'} build written to ${dist} in ${seconds} s`);
}

/** Builds, serves `dist`, and rebuilds when a source changes; a failed rebuild keeps the last site. */
async function serve({ release, port }) {
  const dist = join(ROOT, 'dist');
  await build({ release, dist });
  const server = await serveDirectory(dist, port);
  console.error(`site: serving ${dist} at ${server.origin}/ (Ctrl-C stops; reload the page after a rebuild)`);
  let building = false;
  let again = false;
  let timer = null;
  const rebuild = async () => {
    if (building) return void (again = true);
    building = true;
    try {
      await build({ release, dist });
    } catch (err) {
      console.error(`site: rebuild failed, still serving the last build: ${err.message}`);
    }
    building = false;
    if (again) {
      again = false;
      rebuild();
    }
  };
  const changed = (file) => {
    // Python caches and the module maturin writes beside the Python sources are not ours.
    if (file && /__pycache__|\.so$|\.pyc$|\/target\//.test(file)) return;
    clearTimeout(timer);
    timer = setTimeout(rebuild, 300);
  };
  for (const path of ['src', 'www', 'crates', 'Cargo.toml', 'Cargo.lock']) {
    if (existsSync(join(ROOT, path))) watch(join(ROOT, path), { recursive: true }, (_, file) => changed(file));
  }
}

const USAGE =
  'usage: node scripts/site.mjs build [--release] [--dist DIR] | serve [--release] [--port N] | compile [--release]';

function parseArgs(argv) {
  const [command, ...rest] = argv;
  if (!['build', 'serve', 'compile'].includes(command)) throw new Error(USAGE);
  const options = { release: false, port: 8080, dist: undefined };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--release') options.release = true;
    else if (arg === '--port' && command === 'serve') options.port = Number(rest[++i]);
    else if (arg === '--dist' && command === 'build' && rest[i + 1]) options.dist = resolve(rest[++i]);
    else throw new Error(`unknown or incomplete argument ${arg} (${USAGE})`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`--port wants a port number, not ${rest[rest.indexOf('--port') + 1]}`);
  }
  return { command, ...options };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { command, ...options } = parseArgs(process.argv.slice(2));
    if (command === 'build') await build(options);
    else if (command === 'compile') await compile(options.release);
    else await serve(options);
  } catch (err) {
    console.error(`site: ${err.message}`);
    process.exit(1);
  }
}
