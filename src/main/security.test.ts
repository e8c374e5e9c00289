import { describe, expect, it } from 'vitest';
import {
  devToolsAllowed,
  permissionCheckHandler,
  permissionRequestHandler,
  rendererSource,
  requestAllowed,
  trustedSender,
  willPreventUnloadHandler,
} from './security.ts';

const BUILT = '/opt/rap/resources/app/out/renderer/index.html';
const file = { kind: 'file', file: BUILT } as const;
const dev = { kind: 'dev', url: 'http://localhost:5173/' } as const;

describe('desktop shell security', () => {
  it('denies every permission request and check', () => {
    const answers: boolean[] = [];
    for (const p of ['media', 'notifications', 'clipboard-read', 'geolocation'])
      permissionRequestHandler({}, p, (g) => answers.push(g));
    expect(answers).toEqual([false, false, false, false]);
    expect(permissionCheckHandler()).toBe(false);
  });

  it('ELECTRON_RENDERER_URL is ignored when packaged, and must be a loopback http URL', () => {
    const env = { ELECTRON_RENDERER_URL: 'http://localhost:5173' };
    expect(rendererSource(env, true, BUILT)).toEqual(file);
    expect(rendererSource(env, false, BUILT)).toEqual({ kind: 'dev', url: 'http://localhost:5173/' });
    expect(rendererSource({ ELECTRON_RENDERER_URL: 'https://evil.example' }, false, BUILT)).toEqual(file);
    expect(rendererSource({ ELECTRON_RENDERER_URL: 'http://localhost@evil.example/' }, false, BUILT)).toEqual(
      file,
    );
    expect(rendererSource({}, false, BUILT)).toEqual(file);
  });

  it('the request filter parses URLs: localhost@other.host is other.host; off for http when packaged', () => {
    expect(requestAllowed('http://localhost@other.host/x.js', false, dev)).toBe(false);
    expect(requestAllowed('http://localhost:5173@other.host/', false, dev)).toBe(false);
    expect(requestAllowed('http://localhost.other.host:5173/', false, dev)).toBe(false);
    expect(requestAllowed('http://localhost:5173/src/main.ts', false, dev)).toBe(true);
    expect(requestAllowed('ws://localhost:5173/', false, dev)).toBe(true);
    expect(requestAllowed('http://localhost:8080/', false, dev)).toBe(false);
    expect(requestAllowed('http://localhost:5173/src/main.ts', true, dev)).toBe(false);
    expect(requestAllowed('http://localhost:5173/', false, file)).toBe(false);
    expect(requestAllowed('https://example.com/', false, dev)).toBe(false);
    expect(requestAllowed(`file://${BUILT}`, true, file)).toBe(true);
    expect(requestAllowed('data:image/png;base64,AA==', true, file)).toBe(true);
    expect(requestAllowed('devtools://devtools/bundled/x', true, file)).toBe(false);
    expect(requestAllowed('devtools://devtools/bundled/x', false, file)).toBe(true);
    expect(requestAllowed('not a url', false, dev)).toBe(false);
  });

  it('IPC: only our renderer frame is answered', () => {
    expect(trustedSender(`file://${BUILT}`, file)).toBe(true);
    expect(trustedSender(`file://${BUILT}#/ledger`, file)).toBe(true);
    expect(trustedSender('file:///tmp/evil.html', file)).toBe(false);
    expect(trustedSender('https://evil.example/', file)).toBe(false);
    expect(trustedSender(undefined, file)).toBe(false);
    expect(trustedSender('http://localhost:5173/#/run', dev)).toBe(true);
    expect(trustedSender('http://localhost:5174/', dev)).toBe(false);
    expect(trustedSender('http://localhost:5173@evil.example/', dev)).toBe(false);
  });

  it('DevTools only unpackaged', () => {
    expect(devToolsAllowed(true)).toBe(false);
    expect(devToolsAllowed(false)).toBe(true);
  });

  it('will-prevent-unload: a close the main process confirmed goes ahead; otherwise the page decides', () => {
    let confirmed = false;
    let prevented = 0;
    const handler = willPreventUnloadHandler(() => confirmed);
    handler({ preventDefault: () => prevented++ });
    expect(prevented).toBe(0);
    confirmed = true;
    handler({ preventDefault: () => prevented++ });
    expect(prevented).toBe(1);
  });
});
