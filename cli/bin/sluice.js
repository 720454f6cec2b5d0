#!/usr/bin/env node
// The `sluice` command (npx sluice): runs the compiled CLI (npm run build first).
import { existsSync } from 'node:fs'

const main = new URL('../dist/main.js', import.meta.url)
if (!existsSync(main)) {
  console.error('sluice is not built yet: run `npm run build` (or `npm start`) in the repository first')
  process.exit(1)
}
await import(main.href)
