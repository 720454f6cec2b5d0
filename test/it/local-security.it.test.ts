import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Connection } from '@sluice/client'
import { isFlussError } from '@sluice/core/errors'
import { afterEach, describe, expect, it } from 'vitest'

/** `npm start` (sluice local): open by default with a warning; SLUICE_SECURITY=sasl with generated admin credentials. */
const MAIN = new URL('../../cli/dist/main.js', import.meta.url).pathname
const READY_TIMEOUT_MS = 90_000

interface Running {
  readonly child: ChildProcess
  readonly lines: string[]
  readonly dir: string
}

const running: Running[] = []
afterEach(async () => {
  for (const r of running.splice(0)) {
    if (r.child.exitCode === null) {
      const exited = new Promise(resolve => r.child.once('exit', resolve))
      r.child.kill('SIGTERM')
      await exited
    }
    rmSync(r.dir, { recursive: true, force: true })
  }
})

async function startLocal(env: Record<string, string>): Promise<Running> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-local-security-'))
  const child = spawn(process.execPath, [MAIN, 'local'], {
    env: {
      ...process.env,
      SLUICE_DATA_DIR: dir,
      SLUICE_PORT: '0',
      SLUICE_TABLETS: '1',
      SLUICE_GATEWAY: 'off',
      SLUICE_TIERING_INTERVAL_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const r: Running = { child, lines: [], dir }
  running.push(r)
  let buffered = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready:\n${r.lines.join('\n')}`)), READY_TIMEOUT_MS)
    child.stdout?.on('data', d => {
      buffered += d
      const parts = buffered.split('\n')
      buffered = parts.pop() ?? ''
      r.lines.push(...parts)
      // The banner ends with the security lines after bootstrap.servers.
      const at = r.lines.findIndex(l => l.startsWith('bootstrap.servers='))
      if (at >= 0 && r.lines.length > at + (env.SLUICE_SECURITY === 'sasl' ? 4 : 1)) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once('exit', code => reject(new Error(`exited with ${code}:\n${r.lines.join('\n')}`)))
  })
  return r
}

const value = (lines: readonly string[], key: string) =>
  lines.find(l => l.startsWith(`${key}=`))?.slice(key.length + 1) ?? ''

describe('local mode security', () => {
  it('is PLAINTEXT by default and says so', async () => {
    const { lines } = await startLocal({})
    expect(lines.some(l => l.startsWith('WARNING: PLAINTEXT listeners'))).toBe(true)
  })

  it('SLUICE_SECURITY=sasl prints generated admin credentials that work, and refuses others', async () => {
    const { lines } = await startLocal({ SLUICE_SECURITY: 'sasl', SLUICE_GATEWAY: '127.0.0.1:0' })
    expect(lines.some(l => l.startsWith('WARNING'))).toBe(false)
    const bootstrap = value(lines, 'bootstrap.servers')
    const username = value(lines, 'security.sasl.username')
    const password = value(lines, 'security.sasl.password')
    expect(username).toBe('admin')
    expect(password.length).toBeGreaterThanOrEqual(20)
    const sasl = {
      'bootstrap.servers': bootstrap,
      'client.security.protocol': 'SASL',
      'client.security.sasl.username': username,
      'client.security.sasl.password': password,
    }
    const admin = await Connection.create(sasl)
    try {
      await admin.getAdmin().createDatabase('local_secure')
      expect(await admin.getAdmin().listDatabases()).toContain('local_secure')
    } finally {
      await admin.close()
    }
    const wrong = await Connection.create({ ...sasl, 'client.security.sasl.password': 'guess' }).catch(e => e)
    expect(isFlussError(wrong, 'AUTHENTICATE_EXCEPTION')).toBe(true)
    const anonymous = await Connection.create({ 'bootstrap.servers': bootstrap }).catch(e => e)
    expect(isFlussError(anonymous, 'AUTHENTICATE_EXCEPTION')).toBe(true)
    // The gateway takes the same users (HTTP Basic) and checks them against the same ACLs.
    const gateway = value(lines, 'gateway')
    expect((await fetch(`${gateway}/v1/databases`)).status).toBe(401)
    const basic = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`
    const listed = await fetch(`${gateway}/v1/databases`, { headers: { authorization: basic } })
    expect(listed.status).toBe(200)
    expect(((await listed.json()) as { databases: string[] }).databases).toContain('local_secure')
  })
})
