/**
 * The renderer's only way to the main side. In Electron the preload script exposes
 * `window.rapStudio` (IPC); in web mode we build the same bridge over HTTP + WebSocket, with
 * the per-start token that the page was opened with.
 */
import type {
  ApiArg,
  ApiErrorPayload,
  ApiMethod,
  ApiResult,
  AppEvent,
  RapStudioBridge,
} from '../../../shared/api';

declare global {
  interface Window {
    rapStudio?: RapStudioBridge;
  }
}

export class BridgeError extends Error {
  constructor(readonly payload: ApiErrorPayload) {
    super(payload.message);
  }
}

/**
 * The per-start token: read once from the address (`?token=…`), kept in this tab's
 * sessionStorage, and taken out of the address bar (history.replaceState) so that it is not
 * left in the history, a bookmark or a screenshot. A reload finds it in sessionStorage (and the
 * page itself in the host's cookie).
 */
function webToken(): string {
  const params = new URLSearchParams(window.location.search);
  const fromUrl = params.get('token');
  if (fromUrl) {
    sessionStorage.setItem('rap_token', fromUrl);
    params.delete('token');
    const query = params.toString();
    history.replaceState(
      history.state,
      '',
      `${window.location.pathname}${query ? `?${query}` : ''}${window.location.hash}`,
    );
  }
  return fromUrl ?? sessionStorage.getItem('rap_token') ?? '';
}

function createWebBridge(): RapStudioBridge {
  const token = webToken();
  const listeners = new Set<(e: AppEvent) => void>();
  let socket: WebSocket | undefined;
  const connect = () => {
    const proto = window.location.protocol === 'https:' ? 'wss' : 'ws';
    socket = new WebSocket(`${proto}://${window.location.host}/ws?token=${encodeURIComponent(token)}`);
    socket.onmessage = (m) => {
      const event = JSON.parse(String(m.data)) as AppEvent;
      for (const l of listeners) l(event);
    };
    socket.onopen = () => {
      // After a reconnect the host may have moved on: listeners resynchronize on 'hello'.
      for (const l of listeners) l({ type: 'hello', at: new Date().toISOString() });
    };
    socket.onclose = () => setTimeout(connect, 1000);
  };
  connect();
  return {
    mode: 'web',
    async invoke<M extends ApiMethod>(method: M, arg: ApiArg<M>): Promise<ApiResult<M>> {
      let res: Response;
      try {
        res = await fetch(`/api/${method}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-rap-token': token },
          body: JSON.stringify({ arg }),
        });
      } catch {
        throw new BridgeError({
          kind: 'internal',
          message:
            'The local RAP Studio host does not answer: is it still running? Start it again, then reload this page.',
        });
      }
      if (!res.ok)
        throw new BridgeError({ kind: 'internal', message: `The local host answered ${res.status}.` });
      const body = (await res.json()) as
        | { ok: true; result: ApiResult<M> }
        | { ok: false; error: ApiErrorPayload };
      if (!body.ok) throw new BridgeError(body.error);
      return body.result;
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

let bridge: RapStudioBridge | undefined;

export function api(): RapStudioBridge {
  bridge ??= window.rapStudio ?? createWebBridge();
  return bridge;
}

/** Calls one API method; errors arrive as BridgeError with the services' message. */
export async function call<M extends ApiMethod>(method: M, arg: ApiArg<M>): Promise<ApiResult<M>> {
  try {
    return await api().invoke(method, arg);
  } catch (err) {
    if (err instanceof BridgeError) throw err;
    const payload = (err as { payload?: ApiErrorPayload }).payload;
    throw new BridgeError(payload ?? { kind: 'internal', message: (err as Error).message });
  }
}

/** Web mode: upload a file chosen in the browser to the local host; returns its private path. */
export async function uploadFile(file: File): Promise<{ path: string; name: string; bytes: number }> {
  const res = await fetch(`/upload?name=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    headers: { 'x-rap-token': webToken() },
    body: file,
  });
  if (!res.ok) {
    throw new BridgeError({
      kind: 'input',
      message: `Uploading ${file.name} failed (the host answered ${res.status}).`,
    });
  }
  const body = (await res.json()) as { ok: boolean; result: { path: string; name: string; bytes: number } };
  return body.result;
}
