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

function webToken(): string {
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  if (fromUrl) sessionStorage.setItem('rap_token', fromUrl);
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
    socket.onclose = () => setTimeout(connect, 1000);
  };
  connect();
  return {
    mode: 'web',
    async invoke<M extends ApiMethod>(method: M, arg: ApiArg<M>): Promise<ApiResult<M>> {
      const res = await fetch(`/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-rap-token': token },
        body: JSON.stringify({ arg }),
      });
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

/** Web mode: upload a file chosen in the browser to the local host; returns its private path. */
export async function uploadFile(file: File): Promise<{ path: string; name: string; bytes: number }> {
  const res = await fetch(`/upload?name=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    headers: { 'x-rap-token': webToken() },
    body: file,
  });
  const body = (await res.json()) as { ok: boolean; result: { path: string; name: string; bytes: number } };
  return body.result;
}
