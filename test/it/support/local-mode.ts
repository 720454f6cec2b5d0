import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The `sluice` command as `npm start` runs it (the compiled CLI). */
const CLI_MAIN = fileURLToPath(new URL('../../../cli/dist/main.js', import.meta.url))
const READY_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 60_000

/** What `sluice local` prints once it is ready. */
export interface ReadyBanner {
  readonly gateway: string | undefined
  readonly bootstrapServers: string
}

/** `sluice local` running as a process of its own (and its own process group, as in a terminal). */
export interface LocalMode {
  readonly banner: ReadyBanner
  /** Everything it printed so far (stdout and stderr). */
  output(): string
  /** Ctrl-C: SIGINT to the whole process group; resolves with the exit code. */
  interrupt(): Promise<number | null>
}

/**
 * Starts `sluice local` in `dataDir` on free ports (`SLUICE_PORT=0`, the gateway on port 0 unless
 * `env` says otherwise) and resolves when it printed `bootstrap.servers=`, its last ready line.
 */
export function startLocalMode(dataDir: string, env: Record<string, string> = {}): Promise<LocalMode> {
  const child = spawn(process.execPath, [CLI_MAIN, 'local'], {
    env: {
      ...process.env,
      SLUICE_DATA_DIR: dataDir,
      SLUICE_PORT: '0',
      SLUICE_GATEWAY: '127.0.0.1:0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let output = ''
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill(child, 'SIGKILL')
      reject(new Error(`sluice local was not ready within ${READY_TIMEOUT_MS} ms:\n${output}`))
    }, READY_TIMEOUT_MS)
    const onData = (d: Buffer) => {
      output += d
      const bootstrap = output.match(/^bootstrap\.servers=(\S+)$/m)
      if (bootstrap === null) return
      clearTimeout(timer)
      const gateway = output.match(/^gateway=(\S+)$/m)?.[1]
      resolve({
        banner: { gateway, bootstrapServers: bootstrap[1] },
        output: () => output,
        interrupt: async () => {
          kill(child, 'SIGINT')
          const stop = setTimeout(() => kill(child, 'SIGKILL'), STOP_TIMEOUT_MS)
          const code = await exited
          clearTimeout(stop)
          return code
        },
      })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    exited.then(code => {
      clearTimeout(timer)
      reject(new Error(`sluice local exited with ${code} before it was ready:\n${output}`))
    })
  })
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
  } catch {
    // already gone
  }
}
