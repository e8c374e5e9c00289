#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx, so `npx rap-studio` works right after `npm ci`.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/index.ts');
process.exitCode = await main(process.argv.slice(2));
