import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** Messages to the pk-lookup load client (see pk-lookup-client.ts). */
export type LoadClientRequest =
  | {
      readonly type: 'init'
      readonly config: Record<string, string>
      readonly database: string
      readonly table: string
    }
  | { readonly type: 'run'; readonly clients: number; readonly requests: number; readonly keys: number }
  | { readonly type: 'close' }

/** Answers of the pk-lookup load client, one per request. */
export type LoadClientReply =
  | { readonly type: 'ready' }
  | {
      readonly type: 'result'
      readonly seconds: number
      readonly p50Ms: number
      readonly p99Ms: number
      readonly missing: number
    }
  | { readonly type: 'closed' }
  | { readonly type: 'error'; readonly message: string }

export type LoadResult = Extract<LoadClientReply, { type: 'result' }>

const CLIENT_SCRIPT = fileURLToPath(new URL('./pk-lookup-client.js', import.meta.url))
const STOP_TIMEOUT_MS = 10_000

/**
 * The pk-lookup load client as a child process (its own heap and event loop, like redis-benchmark
 * for the Redis side), driven one request at a time over IPC.
 */
export class LoadClient {
  readonly #child: ChildProcess
  readonly #exited: Promise<number | null>

  private constructor(child: ChildProcess) {
    this.#child = child
    this.#exited = new Promise(resolve => child.once('exit', code => resolve(code)))
  }

  /**
   * Starts the client (`nodeArgs` after the harness's own node flags) and opens a Lookuper on the
   * table.
   */
  static async start(options: {
    config: Record<string, string>
    database: string
    table: string
    nodeArgs: readonly string[]
  }): Promise<LoadClient> {
    const { config, database, table, nodeArgs } = options
    const child = fork(CLIENT_SCRIPT, [], {
      execArgv: [...process.execArgv, ...nodeArgs],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    const client = new LoadClient(child)
    try {
      await client.#request({ type: 'init', config, database, table })
    } catch (e) {
      await client.stop()
      throw e
    }
    return client
  }

  async run(clients: number, requests: number, keys: number): Promise<LoadResult> {
    const reply = await this.#request({ type: 'run', clients, requests, keys })
    if (reply.type !== 'result') throw new Error(`load client answered ${reply.type} to run`)
    return reply
  }

  /** Closes the client's connection and waits for it to exit (killing it when it does not). */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return
    if (this.#child.connected) await this.#request({ type: 'close' }).catch(() => undefined)
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await this.#exited
    clearTimeout(timer)
  }

  #request(message: LoadClientRequest): Promise<LoadClientReply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`load client exited (${code}) during ${message.type}`))
      this.#child.once('exit', onExit)
      this.#child.once('message', (reply: LoadClientReply) => {
        this.#child.off('exit', onExit)
        if (reply.type === 'error') reject(new Error(`load client ${message.type} failed: ${reply.message}`))
        else resolve(reply)
      })
      this.#child.send(message)
    })
  }
}
