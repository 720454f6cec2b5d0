import { type ChildProcess, spawn } from 'node:child_process'
import { createRequire } from 'node:module'
import { FlussError } from '@sluice/core/errors'

export interface S3rverProcess {
  readonly endpoint: string
  readonly pid: number
  stop(): Promise<void>
}

export interface StartS3rverOptions {
  /** Where s3rver keeps buckets and objects. */
  readonly directory: string
  readonly buckets: readonly string[]
  readonly host?: string
  /** 0 (default) picks a free port. */
  readonly port?: number
  /** How long to wait for the server to listen; default 15 s. */
  readonly startTimeoutMs?: number
}

/**
 * The child's program. s3rver builds ListObjectsV2 continuation tokens with the DES cipher, which
 * OpenSSL 3 (Node >= 17) only offers with the legacy provider, so s3rver runs in its own process
 * started with --openssl-legacy-provider; that also keeps its global exception logger out of ours.
 */
const CHILD_PROGRAM = `
const S3rver = require(process.env.SLUICE_S3RVER_MODULE)
const o = JSON.parse(process.env.SLUICE_S3RVER_OPTIONS)
const server = new S3rver({
  address: o.host, port: o.port, directory: o.directory, silent: true, vhostBuckets: false,
  configureBuckets: o.buckets.map(name => ({ name })),
})
let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.close().catch(() => undefined).finally(() => process.exit(0))
}
process.on('disconnect', stop)
process.on('SIGTERM', stop)
server.run().then(a => process.send({ port: a.port }), e => { console.error(e && e.stack || e); process.exit(1) })
`

const STDERR_BYTES_MAX = 16 * 1024

/** Starts s3rver in a child process (see CHILD_PROGRAM) and waits until it listens. */
export async function startS3rver(options: StartS3rverOptions): Promise<S3rverProcess> {
  const host = options.host ?? '127.0.0.1'
  const modulePath = createRequire(import.meta.url).resolve('s3rver')
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD_PROGRAM], {
    env: {
      ...process.env,
      SLUICE_S3RVER_MODULE: modulePath,
      SLUICE_S3RVER_OPTIONS: JSON.stringify({
        host,
        port: options.port ?? 0,
        directory: options.directory,
        buckets: options.buckets,
      }),
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-STDERR_BYTES_MAX)
  })
  const port = await waitForPort(child, options.startTimeoutMs ?? 15_000, () => stderr)
  let stopped: Promise<void> | undefined
  return {
    endpoint: `http://${host}:${port}`,
    pid: child.pid as number,
    stop: () => {
      stopped ??= stopChild(child)
      return stopped
    },
  }
}

function waitForPort(child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      cleanup()
      child.kill('SIGKILL')
      reject(
        new FlussError('STORAGE_EXCEPTION', `s3rver did not start: ${why}${stderr() ? `\n${stderr()}` : ''}`),
      )
    }
    const onMessage = (m: unknown) => {
      const port = (m as { port?: unknown }).port
      if (typeof port !== 'number') return
      cleanup()
      resolve(port)
    }
    const onExit = (code: number | null, signal: string | null) => fail(`exited with ${code ?? signal}`)
    const onError = (e: Error) => fail(e.message)
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      child.off('message', onMessage)
      child.off('exit', onExit)
      child.off('error', onError)
    }
    child.on('message', onMessage)
    child.once('exit', onExit)
    child.once('error', onError)
  })
}

/** SIGTERM, then SIGKILL if the child has not exited after 5 s. */
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
