/**
 * Web mode: the renderer served by a local Node host, with the preload API bridged over HTTP
 * (calls) and a WebSocket (events). It binds 127.0.0.1 only, on a free port, and every request
 * must carry the random per-start token (first in the URL, like Jupyter; then in an HttpOnly
 * SameSite=Strict cookie or the `x-rap-token` header). Requests whose Host or Origin is not
 * this loopback address are refused (DNS-rebinding defence), and static paths cannot escape
 * the renderer directory.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, realpath, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type WebSocket, WebSocketServer } from 'ws';
import { dispatch, toErrorPayload } from '../services/dispatch.ts';
import type { Services } from '../services/services.ts';
import type { AppEvent } from '../shared/api.ts';

export interface WebHostOptions {
  /** Directory holding the built renderer (index.html and assets). */
  readonly staticDir: string;
  /** Private directory for uploads and downloads (created 0700). */
  readonly workDir: string;
  readonly port?: number;
  readonly token?: string;
  /** Largest accepted upload in bytes (default 2 GiB). */
  readonly maxUploadBytes?: number;
  /** Largest WebSocket message from the page (default 64 KiB: the page only listens). */
  readonly maxSocketPayload?: number;
  /** The top-level resources/ folder (the application icon, served as the favicon). */
  readonly resourcesDir?: string;
  /** Builds the services once the host can emit events and offer downloads. */
  readonly createServices: (host: HostHooks) => Services;
}

export interface HostHooks {
  emit(event: AppEvent): void;
  /** Registers a file the browser may download under /download/ID; returns that URL path. */
  offerDownload(path: string, fileName: string): string;
}

export interface WebHost {
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  // Released files in the formats a release may be written to (core/release/output-format.ts).
  '.parquet': 'application/vnd.apache.parquet',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.woff2': 'font/woff2',
};

/**
 * The token cookie's name carries the port: cookies are shared by every port of 127.0.0.1, so
 * with one name a second RAP Studio (or any local server) on another port would overwrite, or be
 * sent, this host's token.
 */
export function cookieName(port: number): string {
  return `rap_token_${port}`;
}

/** The application icon (resources/) as the page's favicon; browsers also ask for /favicon.ico. */
const FAVICONS: Readonly<Record<string, string>> = {
  '/favicon.svg': 'icon.svg',
  '/favicon.png': 'icon.png',
  '/favicon.ico': 'icon.png',
};

function sameToken(a: string | undefined, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieToken(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, v] = part.trim().split('=');
    if (k === name) return v;
  }
  return undefined;
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, {
    'content-type': type,
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), 'application/json; charset=utf-8');
}

async function readJsonBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(chunk as Buffer);
  }
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
}

export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  const token = opts.token ?? randomBytes(24).toString('hex');
  const staticRoot = await realpath(opts.staticDir);
  await mkdir(opts.workDir, { recursive: true, mode: 0o700 });
  const uploadDir = join(opts.workDir, 'uploads');
  await mkdir(uploadDir, { recursive: true, mode: 0o700 });
  const sockets = new Set<WebSocket>();
  const downloads = new Map<string, { path: string; fileName: string }>();
  const emit = (e: AppEvent) => {
    const text = JSON.stringify(e);
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
  };
  const offerDownload = (path: string, fileName: string) => {
    const id = randomUUID();
    downloads.set(id, { path, fileName });
    return `/download/${id}`;
  };
  const services = opts.createServices({ emit, offerDownload });
  let port = 0;

  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const loopbackOnly = (req: IncomingMessage): boolean => {
    if (!allowedHosts().has(req.headers.host ?? '')) return false;
    const origin = req.headers.origin;
    return origin === undefined || [...allowedHosts()].some((h) => origin === `http://${h}`);
  };
  const authorized = (req: IncomingMessage, url: URL): boolean =>
    sameToken(url.searchParams.get('token') ?? undefined, token) ||
    sameToken(req.headers['x-rap-token'] as string | undefined, token) ||
    sameToken(cookieToken(req, cookieName(port)), token);

  async function serveStatic(res: ServerResponse, url: URL, setCookie: boolean): Promise<void> {
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      return send(res, 400, 'Bad path');
    }
    if (rel.includes('\0')) return send(res, 400, 'Bad path');
    if (rel === '/' || rel === '') rel = '/index.html';
    const full = resolve(staticRoot, `.${rel}`);
    if (full !== staticRoot && !full.startsWith(staticRoot + sep)) return send(res, 403, 'Forbidden');
    let real: string;
    try {
      real = await realpath(full);
      if (!real.startsWith(staticRoot + sep) || !(await stat(real)).isFile())
        return send(res, 404, 'Not found');
    } catch {
      return send(res, 404, 'Not found');
    }
    const headers: Record<string, string> = {
      'content-type': MIME[extname(real)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'content-security-policy': [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    };
    if (setCookie) headers['set-cookie'] = `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    res.writeHead(200, headers);
    await pipeline(createReadStream(real), res);
  }

  /**
   * An upload is a private copy: one that fails (too large, the connection dropped, a full disk)
   * leaves nothing behind. Too large is answered 413 — up front from Content-Length when the
   * browser sends it, else once the limit is passed (the rest is read and dropped, so the page
   * gets the answer rather than a reset).
   */
  async function handleUpload(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const name = (url.searchParams.get('name') ?? 'upload.csv').replace(/[^\w.\- ]/g, '_').slice(0, 200);
    // '.' and '..' name the folder itself or its parent, not a file: refuse them with a 400.
    if (/^\.+$/.test(name)) {
      req.resume();
      return sendJson(res, 400, {
        ok: false,
        error: {
          kind: 'input',
          message: `"${name}" is not a file name: rename the file (e.g. data.csv) and upload it again. Nothing was stored.`,
        },
      });
    }
    const limit = opts.maxUploadBytes ?? 2 ** 31;
    const tooLarge = () => {
      res.setHeader('connection', 'close');
      sendJson(res, 413, {
        ok: false,
        error: {
          kind: 'input',
          message: `The file is larger than ${limit} bytes, the most web mode accepts: nothing was stored.`,
        },
      });
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      return tooLarge();
    }
    const id = randomUUID();
    const dir = join(uploadDir, id);
    await mkdir(dir, { mode: 0o700 });
    const path = join(dir, name || 'upload.csv');
    let size = 0;
    let over = false;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > limit) {
          over = true;
          done(new Error('upload too large'));
        } else done(null, chunk);
      },
    });
    req.pipe(counter);
    // A dropped connection never ends the stream: end the copy with an error instead.
    req.on('error', (err) => counter.destroy(err));
    req.on('close', () => {
      if (!req.complete) counter.destroy(new Error('upload interrupted'));
    });
    try {
      await pipeline(counter, createWriteStream(path, { mode: 0o600, flags: 'wx' }));
    } catch (err) {
      req.unpipe(counter);
      await rm(dir, { recursive: true, force: true });
      if (over) {
        req.resume(); // drop the rest so the answer reaches the page
        return tooLarge();
      }
      throw err;
    }
    sendJson(res, 200, { ok: true, result: { path, name, bytes: size } });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!loopbackOnly(req)) return send(res, 403, 'Forbidden: this host only answers 127.0.0.1 / localhost.');
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (!authorized(req, url))
      return send(res, 401, 'Unauthorized: open the URL with the token printed at start.');
    const path = url.pathname;
    if (req.method === 'POST' && path.startsWith('/api/')) {
      try {
        const body = (await readJsonBody(req)) as { arg?: unknown };
        const result = await dispatch(services, path.slice('/api/'.length), body.arg);
        return sendJson(res, 200, { ok: true, result });
      } catch (err) {
        const error = toErrorPayload(err);
        // The curator sees a generic message; the details go to the host's log (stderr).
        if (error.kind === 'internal')
          process.stderr.write(`api ${path}: ${(err as Error)?.stack ?? String(err)}\n`);
        return sendJson(res, 200, { ok: false, error });
      }
    }
    if (req.method === 'POST' && path === '/upload') return handleUpload(req, res, url);
    if (req.method === 'GET' && path.startsWith('/download/')) {
      const item = downloads.get(path.slice('/download/'.length));
      if (!item) return send(res, 404, 'Not found');
      res.writeHead(200, {
        'content-type': MIME[extname(item.fileName)] ?? 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${item.fileName.replace(/"/g, '')}"`,
        'cache-control': 'no-store',
      });
      return pipeline(createReadStream(item.path), res);
    }
    const icon = FAVICONS[path];
    if (req.method === 'GET' && icon && opts.resourcesDir) {
      res.writeHead(200, { 'content-type': MIME[extname(icon)], 'cache-control': 'max-age=86400' });
      return pipeline(createReadStream(join(opts.resourcesDir, icon)), res);
    }
    if (req.method === 'GET' || req.method === 'HEAD')
      return serveStatic(res, url, url.searchParams.has('token'));
    return send(res, 405, 'Method not allowed');
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      process.stderr.write(`web host: ${(err as Error).message}\n`);
      if (!res.headersSent) send(res, 500, 'Internal error');
      else res.destroy();
    });
  });
  // The page only listens on the socket: a small payload cap, and a socket error (a bad frame,
  // a reset) drops that socket instead of becoming an uncaught 'error' that ends the host.
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxSocketPayload ?? 64 * 1024 });
  wss.on('error', (err) => process.stderr.write(`web host socket server: ${err.message}\n`));
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (url.pathname !== '/ws' || !loopbackOnly(req) || !authorized(req, url)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('error', () => {
        sockets.delete(ws);
        ws.terminate();
      });
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, '127.0.0.1', ok);
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    token,
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise<void>((ok) => server.close(() => ok()));
      server.closeAllConnections();
    },
  };
}
