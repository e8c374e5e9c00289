export const root: string;
export function electronBinary(): string | null;
export function ensureNodeBuild(): void;
export function ensureElectronBuild(): void;
