import { spawn, spawnSync } from 'node:child_process'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The compiled `sluice` binary (`npm run build` first). */
export const SLUICE_BIN = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'),
  'cli',
  'dist',
  'main.js',
)

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `sluice <args>` as a child process, with `input` on stdin. */
export function sluice(
  args: readonly string[],
  options: {
    readonly env?: Record<string, string>
    readonly input?: string
    readonly timeoutMs?: number
  } = {},
): Promise<CliRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [SLUICE_BIN, ...args], {
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => {
      stdout += d
    })
    child.stderr.on('data', d => {
      stderr += d
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
    child.on('error', reject)
    child.on('close', code => {
      clearTimeout(timer)
      resolvePromise({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? '')
  })
}

/** Whether util-linux `script` can give a command a pseudo-terminal here. */
export function hasScript(): boolean {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
}

/** Runs `sluice <args>` under a pseudo-terminal (`script`); resolves with everything the terminal showed. */
export function sluiceOnTerminal(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  const quoted = [process.execPath, SLUICE_BIN, ...args].map(a => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  return new Promise((resolvePromise, reject) => {
    const child = spawn('script', ['-qfec', quoted, '/dev/null'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    child.stdout.on('data', d => {
      stdout += d
    })
    child.on('error', reject)
    child.on('close', code => resolvePromise({ code, stdout, stderr: '' }))
    child.stdin.end()
  })
}
