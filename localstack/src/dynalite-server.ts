import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import dynalite from 'dynalite'

export interface DynaliteServer {
  readonly endpoint: string
  stop(): Promise<void>
}

export interface StartDynaliteOptions {
  /** LevelDB directory for persistence; in memory when omitted. */
  readonly path?: string
  readonly host?: string
  /** 0 (default) picks a free port. */
  readonly port?: number
}

/**
 * dynalite (DynamoDB emulator) in this process. Tables become ACTIVE at once (createTableMs: 0).
 * It has no transactions, no TTL expiry and does not return the item of a failed condition.
 */
export async function startDynalite(options: StartDynaliteOptions = {}): Promise<DynaliteServer> {
  checkNodeConditions()
  const host = options.host ?? '127.0.0.1'
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(options.path ? { path: options.path } : {}),
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  let stopped: Promise<void> | undefined
  return {
    endpoint: `http://${host}:${port}`,
    stop() {
      stopped ??= new Promise<void>((resolve, reject) => {
        // dynalite's close() waits for open sockets, then closes its LevelDB store.
        server.close(err => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      })
      return stopped
    },
  }
}

/**
 * dynalite require()s big.js, whose package maps the `import` condition to an ES module. When Node
 * runs with `--conditions import` (vitest passes its resolve conditions that way), require() gets
 * that module's namespace instead of the constructor and every number fails validation. Fail
 * early with the cause instead.
 */
function checkNodeConditions(): void {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'))
  if (typeof fromDynalite('big.js') !== 'function') {
    throw new Error(
      "dynalite cannot run in this process: Node resolves require('big.js') to its ES module build, which happens " +
        "when it runs with '--conditions import' (in vitest: remove 'import' from resolve.conditions; vite applies it anyway)",
    )
  }
}
