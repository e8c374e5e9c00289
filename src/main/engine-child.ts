/**
 * Entry of the engine's utility process in the Electron app (bundled by electron-vite).
 * The engine process protocol lives in src/core/engine/process.
 */
export {};
