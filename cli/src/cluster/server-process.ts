import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs'
import { dirname } from 'node:path'
import { createInterface } from 'node:readline'
import { humanLogLine } from '@sluice/core/log'

/** The line a server prints when its Prometheus endpoint is up. */
const METRICS_LINE = /^metrics=(http:\/\/\S+)$/

export interface ServerProcessOptions {
  /** A name for logs, e.g. `tablet-server-1`. */
  readonly name: string
  /** The compiled entry point (`services/tablet/dist/main.js`). */
  readonly script: string
  /** Node flags of the server's role (before SLUICE_NODE_ARGS). */
  readonly nodeFlags?: readonly string[]
  readonly args?: readonly string[]
  readonly env: Readonly<Record<string, string | undefined>>
  /** Matches the readiness line; group 1 = host, group 2 = port. */
  readonly ready: RegExp
  readonly readyTimeoutMs: number
  /** Every output line is appended here. */
  readonly logFile: string
  /** Also echo output lines, prefixed with the name (JSON log lines in a human format). */
  readonly echo?: boolean
  /** Called with every output line. */
  readonly onLine?: (line: string) => void
}

/**
 * One server started as a child process, in a process group of its own. It stops with the parent:
 * the child's stdin is a pipe and the servers exit when it closes (`stopOnSignalsOrParentExit`).
 */
export class ServerProcess {
  host = ''
  port = 0
  /** `http://host:port/metrics` once the server printed it (metric reporter on). */
  metricsUrl: string | undefined
  private child: ChildProcess | undefined
  private log: WriteStream | undefined
  private exited: Promise<number | null> = Promise.resolve(null)
  private readonly lines: string[] = []

  constructor(readonly options: ServerProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null
  }

  /** The last output lines (for error messages). */
  recentOutput(n = 30): string {
    return this.lines.slice(-n).join('\n')
  }

  async start(): Promise<void> {
    const o = this.options
    mkdirSync(dirname(o.logFile), { recursive: true })
    this.log = createWriteStream(o.logFile, { flags: 'a' })
    // SLUICE_NODE_ARGS: extra node flags for the servers (e.g. --cpu-prof), for debugging.
    const nodeArgs = (o.env.SLUICE_NODE_ARGS ?? '').split(' ').filter(a => a !== '')
    const flags = [...(o.nodeFlags ?? []), ...nodeArgs]
    const child = spawn(process.execPath, [...flags, o.script, ...(o.args ?? [])], {
      env: { ...o.env, SLUICE_EXIT_WITH_PARENT: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
      // A process group of its own: Ctrl-C in a terminal signals only the parent, which then stops
      // the servers in order (tablet servers hand their leaderships over before the coordinator goes).
      detached: true,
    })
    this.child = child
    this.exited = new Promise(resolve => child.once('exit', code => resolve(code)))
    let onReady: ((m: RegExpMatchArray) => void) | undefined
    const readyLine = new Promise<RegExpMatchArray>(resolve => {
      onReady = resolve
    })
    const consume = (stream: NodeJS.ReadableStream) => {
      createInterface({ input: stream }).on('line', line => {
        this.lines.push(line)
        if (this.lines.length > 500) this.lines.splice(0, 100)
        this.log?.write(`${line}\n`)
        if (o.echo) process.stdout.write(`[${o.name}] ${humanLogLine(line)}\n`)
        const metrics = line.match(METRICS_LINE)
        if (metrics) this.metricsUrl = metrics[1]
        o.onLine?.(line)
        const m = line.match(o.ready)
        if (m && onReady) {
          onReady(m)
          onReady = undefined
        }
      })
    }
    consume(child.stdout as NodeJS.ReadableStream)
    consume(child.stderr as NodeJS.ReadableStream)
    const failed = this.exited.then(code => {
      throw new Error(`${o.name} exited with code ${code} before it was ready:\n${this.recentOutput()}`)
    })
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`${o.name} was not ready within ${o.readyTimeoutMs} ms:\n${this.recentOutput()}`)),
        o.readyTimeoutMs,
      )
    })
    try {
      const m = await Promise.race([readyLine, failed, timeout])
      this.host = m[1]
      this.port = Number(m[2])
    } catch (e) {
      this.child.kill('SIGKILL')
      await this.exited
      throw e
    } finally {
      clearTimeout(timer)
      failed.catch(() => undefined)
    }
  }

  /** Graceful stop: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (!this.running) return this.finish()
    this.child?.kill('SIGCONT')
    this.child?.kill('SIGTERM')
    let timer: NodeJS.Timeout | undefined
    const code = await Promise.race([
      this.exited,
      new Promise<'timeout'>(resolve => {
        timer = setTimeout(() => resolve('timeout'), graceMs)
      }),
    ])
    clearTimeout(timer)
    if (code === 'timeout') return this.kill()
    return this.finish()
  }

  /** kill -9. */
  async kill(): Promise<number | null> {
    if (this.running) this.child?.kill('SIGKILL')
    return this.finish()
  }

  /** SIGSTOP: the process freezes (no heartbeats, no responses) until resumed. */
  pause(): void {
    if (this.running) this.child?.kill('SIGSTOP')
  }

  resume(): void {
    if (this.running) this.child?.kill('SIGCONT')
  }

  private async finish(): Promise<number | null> {
    const code = await this.exited
    await new Promise<void>(resolve => (this.log ? this.log.end(resolve) : resolve()))
    this.log = undefined
    return code
  }
}
