import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { expect, it } from 'vitest'
import { SLUICE_BIN } from './support/cli.js'
import { scrape } from './support/prometheus.js'

it('sluice local (npm start) prints one metrics URL per process after the ready banner, each serving /metrics', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-local-'))
  const child = spawn(process.execPath, [SLUICE_BIN, 'local'], {
    env: {
      ...process.env,
      SLUICE_DATA_DIR: dataDir,
      SLUICE_PORT: '0',
      SLUICE_TABLETS: '1',
      SLUICE_GATEWAY: '127.0.0.1:0',
      SLUICE_TIERING_INTERVAL_MS: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready:\n${lines.join('\n')}`)), 90_000)
      createInterface({ input: child.stdout }).on('line', line => {
        lines.push(line)
        if (line.startsWith('tiering: metrics=')) {
          clearTimeout(timer)
          resolve()
        }
      })
      child.once('exit', code => reject(new Error(`exited with ${code}:\n${lines.join('\n')}`)))
    })
    const ready = lines.findIndex(l => l.startsWith('ready in '))
    const metrics = lines.map(
      (l, i) => [i, l.match(/^([\w-]+): metrics=(http:\/\/127\.0\.0\.1:\d+\/metrics)$/)] as const,
    )
    const found = metrics
      .filter(([, m]) => m !== null)
      .map(([i, m]) => ({ i, name: m?.[1], url: m?.[2] as string }))
    expect(found.map(f => f.name)).toEqual(['coordinator-0', 'tablet-server-1', 'gateway', 'tiering'])
    expect(ready).toBeGreaterThanOrEqual(0)
    for (const f of found) {
      expect(f.i).toBeGreaterThan(ready)
      expect((await scrape(f.url)).has('nodejs_heap_size_used_bytes')).toBe(true)
    }
  } finally {
    child.kill('SIGINT')
    await new Promise(resolve => child.once('exit', resolve))
    rmSync(dataDir, { recursive: true, force: true })
  }
})
