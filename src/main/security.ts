/**
 * The desktop shell's security decisions as plain functions (no `electron` import), so that each
 * is unit-tested here, where Electron cannot launch. src/main/index.ts wires them to Electron's
 * hooks.
 */
import { pathToFileURL } from 'node:url';

/** Where the renderer comes from: the built file, or (development only) the dev server. */
export type RendererSource =
  | { readonly kind: 'file'; readonly file: string }
  | { readonly kind: 'dev'; readonly url: string };

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * ELECTRON_RENDERER_URL (electron-vite's dev server) is honoured only in an unpackaged build, and
 * only for an http URL on the loopback interface; otherwise the built renderer file.
 */
export function rendererSource(env: NodeJS.ProcessEnv, packaged: boolean, builtFile: string): RendererSource {
  const dev = env.ELECTRON_RENDERER_URL;
  if (!packaged && dev) {
    const u = parse(dev);
    if (u && u.protocol === 'http:' && LOOPBACK.has(u.hostname) && u.username === '' && u.password === '')
      return { kind: 'dev', url: u.href };
  }
  return { kind: 'file', file: builtFile };
}

/**
 * Which requests the session lets through: local content (file:, blob:, data:) always; the dev
 * server's origin and DevTools only in an unpackaged build. URLs are parsed, not prefix-matched:
 * `http://localhost@other.host/` is a request to other.host and is refused.
 */
export function requestAllowed(url: string, packaged: boolean, source: RendererSource): boolean {
  const u = parse(url);
  if (!u) return false;
  if (u.protocol === 'file:' || u.protocol === 'blob:' || u.protocol === 'data:') return true;
  if (packaged) return false;
  if (u.protocol === 'devtools:') return true;
  if (source.kind !== 'dev') return false;
  const dev = new URL(source.url);
  // The dev server's own origin, and its hot-reload socket.
  return (
    (u.protocol === 'http:' || u.protocol === 'ws:') &&
    u.hostname === dev.hostname &&
    u.port === dev.port &&
    u.username === '' &&
    u.password === ''
  );
}

/** The page never gets a permission (camera, notifications, clipboard, geolocation…). */
export function permissionRequestHandler(
  _webContents: unknown,
  _permission: string,
  callback: (granted: boolean) => void,
): void {
  callback(false);
}

export function permissionCheckHandler(): boolean {
  return false;
}

/** DevTools only in an unpackaged (development) build. */
export function devToolsAllowed(packaged: boolean): boolean {
  return !packaged;
}

/**
 * An IPC call is answered only when it comes from our renderer's main frame: its URL is the
 * built index.html (any hash/query) or, in development, the dev server's origin.
 */
export function trustedSender(frameUrl: string | undefined, source: RendererSource): boolean {
  if (!frameUrl) return false;
  const u = parse(frameUrl);
  if (!u) return false;
  if (source.kind === 'file') {
    const want = pathToFileURL(source.file);
    return u.protocol === 'file:' && u.pathname === want.pathname && u.host === want.host;
  }
  return u.origin === new URL(source.url).origin && u.username === '' && u.password === '';
}

/**
 * `will-prevent-unload`: the page's beforeunload handler would cancel a close. Once the main
 * process has confirmed the close with the curator (or nothing needed confirming), the close
 * goes ahead (event.preventDefault() ignores the page's handler); otherwise the page may keep it.
 */
export function willPreventUnloadHandler(
  closeConfirmed: () => boolean,
): (event: { preventDefault(): void }) => void {
  return (event) => {
    if (closeConfirmed()) event.preventDefault();
  };
}
