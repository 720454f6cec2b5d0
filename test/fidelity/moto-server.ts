import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/**
 * moto's standalone server (Python; DynamoDB and S3 on one port) as a child process, for the
 * fidelity suite. CI sets SLUICE_REQUIRE_MOTO=1: then a moto that cannot start fails the suite
 * instead of skipping it.
 */
export interface MotoServer {
  readonly endpoint: string
  stop(): Promise<void>
}

export type MotoStart = { readonly moto: MotoServer } | { readonly skipReason: string }

const DEFAULT_BINARY = fileURLToPath(new URL('../../.ci/.venv/bin/moto_server', import.meta.url))
const READY_TIMEOUT_MS = 30_000
const STDERR_BYTES_MAX = 16 * 1024

export const motoRequired = process.env.SLUICE_REQUIRE_MOTO === '1'
const binary = process.env.SLUICE_MOTO_SERVER ?? DEFAULT_BINARY

/** Starts moto, or explains why not; throws instead when moto is required. */
export async function startMotoOrSkip(): Promise<MotoStart> {
  try {
    return { moto: await startMoto() }
  } catch (e) {
    const reason = `moto unavailable: ${(e as Error).message} (run .ci/fidelity.sh to install it)`
    if (motoRequired) throw new Error(`SLUICE_REQUIRE_MOTO=1 but ${reason}`)
    return { skipReason: reason }
  }
}

export async function startMoto(): Promise<MotoServer> {
  if (!existsSync(binary)) throw new Error(`${binary} not found`)
  const port = await freePort()
  const child = spawn(binary, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-STDERR_BYTES_MAX)
  })
  const endpoint = `http://127.0.0.1:${port}`
  try {
    await waitReady(child, endpoint)
  } catch (e) {
    await stopChild(child)
    throw new Error(`${(e as Error).message}\n${stderr.split('\n').slice(-10).join('\n')}`)
  }
  let stopped: Promise<void> | undefined
  return {
    endpoint,
    stop: () => {
      stopped ??= stopChild(child)
      return stopped
    },
  }
}

/** A port that was free a moment ago (moto takes its port as an argument, not 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

async function waitReady(child: ChildProcess, endpoint: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`moto_server exited with ${child.exitCode ?? child.signalCode}`)
    try {
      const res = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(2_000) })
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  throw new Error(`moto_server did not answer within ${READY_TIMEOUT_MS} ms`)
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise(resolve => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(timer)
      child.stderr?.destroy()
      resolve()
    })
    child.kill('SIGTERM')
  })
}
