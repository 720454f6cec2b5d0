import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CoordinatorServer } from '@sluice/coordinator'
import { BIND_LISTENERS, Configuration, DATA_DIR, TABLET_SERVER_ID } from '@sluice/core/config'
import { Catalog, readOnlyAdminHandlers } from '@sluice/core/control-plane'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { MetaStoreControlPlane, TabletServer } from '@sluice/tablet'
import { keyRouter } from '@sluice/tablet/kv'

/**
 * The server of the key-check benchmarks, run as a child process of the harness: a coordinator and
 * one tablet server over an in-memory metadata store. The tablet server checks the keys of PUT_KV,
 * LOOKUP and PREFIX_LOOKUP as every server does, except for tables whose name starts with its argument,
 * whose keys it does not check (it is given a key router that answers undefined for them through
 * its `keyRouterOf`, which is not a setting). Both kinds of table live in the one process, so the
 * runs of either meet the same heap, JIT and threads. Answers `ready` (the coordinator's and the
 * tablet server's addresses) over IPC once both serve and `cpu` (its CPU time so far) to each
 * `cpu` message; a `close` message (or the harness going away) stops them.
 */

export type KeyCheckServerReply =
  | {
      readonly type: 'ready'
      readonly bootstrapServers: string
      readonly tablet: { readonly host: string; readonly port: number }
    }
  | { readonly type: 'error'; readonly message: string }
  /** The CPU time this process has used so far (every thread: RocksDB's too), in microseconds. */
  | { readonly type: 'cpu'; readonly micros: number }

async function start(unchecked: string): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-bench-key-check-'))
  const store = new MemoryMetaStore()
  const coordinator = new CoordinatorServer({
    config: Configuration.load({ [BIND_LISTENERS.key]: 'FLUSS://127.0.0.1:0' }),
    metaStore: store,
  })
  const tablet = new TabletServer({
    config: Configuration.load({
      [BIND_LISTENERS.key]: 'FLUSS://127.0.0.1:0',
      [TABLET_SERVER_ID.key]: 1,
      [DATA_DIR.key]: dataDir,
    }),
    controlPlane: new MetaStoreControlPlane(new Catalog(store), store, 'FLUSS'),
    adminHandlers: readOnlyAdminHandlers(new Catalog(store)),
    metaStore: store,
    keyRouterOf: table => (table.tablePath.tableName.startsWith(unchecked) ? undefined : keyRouter(table)),
  })
  await coordinator.start()
  await tablet.start()
  const [listener] = coordinator.boundEndpoints
  const { host, port } = tablet.endpoints[0]
  const ready: KeyCheckServerReply = {
    type: 'ready',
    bootstrapServers: `${listener.host}:${listener.port}`,
    tablet: { host, port },
  }
  process.send?.(ready)
  return async () => {
    await tablet.stop()
    await coordinator.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const unchecked = process.argv[2]
if (unchecked === undefined)
  throw new Error('usage: key-check-server.js <name of the tables whose keys are not checked>')
let stop: (() => Promise<void>) | undefined
const exit = () => {
  const stopping = stop ?? (async () => undefined)
  stop = undefined
  void stopping().finally(() => process.exit(0))
}
process.on('message', (message: { type: string }) => {
  if (message.type === 'close') exit()
  if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage()
    process.send?.({ type: 'cpu', micros: user + system })
  }
})
process.on('disconnect', exit)
start(unchecked).then(
  s => {
    stop = s
  },
  e => {
    process.send?.({ type: 'error', message: e instanceof Error ? (e.stack ?? e.message) : String(e) })
    process.exit(1)
  },
)
