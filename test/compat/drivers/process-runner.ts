import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PEER_JAVA_DIR, PEER_PYTHON, PEERS_COMMAND, peerProblem } from '@sluice/core/testing'

const COMPAT_DIR = new URL('..', import.meta.url).pathname
/** Upper bound of one driver run (the 100,000-row reads take a few seconds). */
const DRIVER_TIMEOUT_MS = 240_000
const STDERR_TAIL_LINES = 60

/** Starts the Java driver (Fluss Java client 0.9.1) or the Python driver (pyfluss). */
export interface ProcessCommand {
  readonly program: string
  readonly prefix: readonly string[]
}

/** The Java driver; fails naming `npm run peers` when it is not built. */
export function javaCommand(): ProcessCommand {
  const problem = peerProblem({ java: true })
  if (problem !== null) throw new Error(`${problem}: run \`${PEERS_COMMAND}\``)
  const classpathFile = join(PEER_JAVA_DIR, 'target', 'classpath.txt')
  const classpath = `${join(PEER_JAVA_DIR, 'target', 'classes')}:${readFileSync(classpathFile, 'utf8').trim()}`
  // Arrow Java (inside the Fluss client) needs java.nio opened on Java 17.
  const jvm = ['--add-opens=java.base/java.nio=ALL-UNNAMED', '-XX:+UseSerialGC']
  return { program: 'java', prefix: [...jvm, '-cp', classpath, 'io.sluice.compat.Main'] }
}

/** The Python driver; fails naming `npm run peers` when the venv (with pyfluss) is missing. */
export function pythonCommand(): ProcessCommand {
  const problem = peerProblem({ python: ['fluss', 'pyarrow'] })
  if (problem !== null) throw new Error(`${problem}: run \`${PEERS_COMMAND}\``)
  return { program: PEER_PYTHON, prefix: [join(COMPAT_DIR, 'python', 'compat.py')] }
}

export interface DriverRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly result: Record<string, unknown> | undefined
}

/**
 * Runs one driver command and parses its JSON line (never throws for a failed command).
 * `clientConf` adds client options (SLUICE_COMPAT_CLIENT_CONF), e.g. SASL credentials.
 */
export function runDriver(
  command: ProcessCommand,
  args: readonly string[],
  clientConf: Readonly<Record<string, string>> = {},
): Promise<DriverRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, SLUICE_COMPAT_CLIENT_CONF: JSON.stringify(clientConf) }
    const child = spawn(command.program, [...command.prefix, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', d => {
      stdout += d
    })
    child.stderr.on('data', d => {
      stderr += d
    })
    const timer = setTimeout(() => {
      stderr += `\n[driver killed after ${DRIVER_TIMEOUT_MS} ms]`
      child.kill('SIGKILL')
    }, DRIVER_TIMEOUT_MS)
    child.on('error', reject)
    child.on('close', code => {
      clearTimeout(timer)
      const last = stdout.trim().split('\n').pop() ?? ''
      let result: Record<string, unknown> | undefined
      try {
        result = JSON.parse(last) as Record<string, unknown>
      } catch {
        result = undefined
      }
      resolve({ code, stdout, stderr, result })
    })
  })
}

const tail = (text: string, lines: number) => text.trim().split('\n').slice(-lines).join('\n')

/** A driver failure with everything needed to debug it (the suite appends the cluster logs). */
export class DriverError extends Error {
  constructor(
    readonly driver: string,
    readonly args: readonly string[],
    readonly run: DriverRun,
  ) {
    const summary = run.result ? JSON.stringify(run.result).slice(0, 4000) : tail(run.stdout, 20)
    super(
      `${driver} ${args.join(' ')} exited with ${run.code}\nresult: ${summary}\n--- ${driver} stderr (last ${STDERR_TAIL_LINES} lines) ---\n${tail(run.stderr, STDERR_TAIL_LINES)}`,
    )
  }
}
