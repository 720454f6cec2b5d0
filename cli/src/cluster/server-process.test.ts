import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ServerProcess } from './server-process.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A stand-in server: prints its node flags, then a ready line, and exits when stdin closes. */
const SCRIPT = `
console.log('flags=' + JSON.stringify(process.execArgv))
console.log('ready on 127.0.0.1:4321')
process.stdin.on('end', () => process.exit(0)).resume()
`

describe('ServerProcess', () => {
  it("starts the server with its role's node flags, then SLUICE_NODE_ARGS", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-server-process-'))
    cleanups.push(() => rm(dir, { recursive: true, force: true }))
    const script = join(dir, 'server.cjs')
    await writeFile(script, SCRIPT)
    const proc = new ServerProcess({
      name: 'stand-in',
      script,
      nodeFlags: ['--max-semi-space-size=64'],
      env: { ...process.env, SLUICE_NODE_ARGS: '--stack-trace-limit=20' },
      ready: /ready on ([\d.]+):(\d+)/,
      readyTimeoutMs: 10_000,
      logFile: join(dir, 'server.log'),
    })
    await proc.start()
    cleanups.push(() => proc.stop())
    expect(proc.port).toBe(4321)
    expect(proc.recentOutput()).toContain('flags=["--max-semi-space-size=64","--stack-trace-limit=20"]')
  })
})
