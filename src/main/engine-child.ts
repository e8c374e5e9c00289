/**
 * Entry of the engine's utility process in the Electron app (bundled by electron-vite). The
 * engine child detects Electron's parentPort and speaks the same protocol as under Node's fork
 * (src/core/engine/process).
 */
import '../core/engine/process/child.ts';
