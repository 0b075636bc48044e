#!/usr/bin/env node
// The package's bin `svc-gateway-listen` (sdk/node/src/listen.ts): npx svc-gateway-listen --help
import { main } from './listen.ts';

process.exitCode = await main(process.argv.slice(2));
