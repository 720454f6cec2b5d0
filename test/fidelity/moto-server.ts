import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer } from 'node:net'
import { PEER_MOTO_SERVER, peerAvailable, peersRequired, skipLine } from '@sluice/core/testing'

/**
 * moto's standalone server (Python; DynamoDB and S3 on one port) as a child process, for the
 * fidelity suite. A suite without moto skips with one line naming `npm run peers`; CI sets
 * SLUICE_REQUIRE_PEERS=1: then a moto that is missing or cannot start fails the suite instead.
 */
export interface MotoServer {
  readonly endpoint: string
  stop(): Promise<void>
}

export type MotoStart = { readonly moto: MotoServer } | { readonly skipReason: string }

const READY_TIMEOUT_MS = 30_000
const STDERR_BYTES_MAX = 16 * 1024

const binary = process.env.SLUICE_MOTO_SERVER ?? PEER_MOTO_SERVER

/** Starts moto for `suite`, or says why not (one line); throws instead when peers are required. */
export async function startMotoOrSkip(suite: string): Promise<MotoStart> {
  if (binary === PEER_MOTO_SERVER && !peerAvailable(suite, { moto: true })) {
    return { skipReason: 'moto_server is not installed' }
  }
  try {
    return { moto: await startMoto() }
  } catch (e) {
    const problem = `moto_server did not start: ${(e as Error).message.split('\n')[0]}`
    if (peersRequired()) throw new Error(`${suite} needs moto, and SLUICE_REQUIRE_PEERS=1: ${problem}`)
    console.warn(skipLine(suite, problem))
    return { skipReason: problem }
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
