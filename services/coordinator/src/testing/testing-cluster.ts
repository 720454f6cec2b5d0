import type { Configuration } from '@sluice/core/config'
import { Catalog } from '@sluice/core/control-plane'
import { MemoryMetaStore, type MetaStore } from '@sluice/core/metastore'
import { ClientConnection } from '@sluice/core/rpc'
import type { ServerProbe } from '../membership/server-probe.js'
import { CoordinatorServer } from '../server/coordinator-server.js'
import { FakeTabletServer, TestingTime, testCoordinatorConfig } from './coordinator-fixtures.js'

/** Tablet server leases in tests last this long unless renewed. */
export const TEST_SERVER_LEASE_MS = 60_000

/**
 * An in-process cluster for coordinator tests: one MemoryMetaStore, a TestingTime shared by every
 * party, fake tablet servers with leases, and coordinators started on demand.
 */
export class TestingCluster {
  readonly store: MetaStore
  readonly time = new TestingTime()
  readonly catalog: Catalog
  readonly servers = new Map<number, FakeTabletServer>()
  readonly #coordinators: CoordinatorServer[] = []
  readonly #connections: ClientConnection[] = []

  /** `store`: the metadata store of every party (default a fresh MemoryMetaStore). */
  constructor(options: { store?: MetaStore } = {}) {
    this.store = options.store ?? new MemoryMetaStore()
    this.catalog = new Catalog(this.store, { nowMs: () => this.time.nowMs() })
  }

  async addTabletServers(racks: (string | null)[]): Promise<FakeTabletServer[]> {
    const added: FakeTabletServer[] = []
    for (const rack of racks) {
      const server = new FakeTabletServer(this.servers.size + 1, rack)
      await server.start(this.catalog, TEST_SERVER_LEASE_MS)
      this.servers.set(server.serverId, server)
      added.push(server)
    }
    return added
  }

  server(id: number): FakeTabletServer {
    const s = this.servers.get(id)
    if (s === undefined) throw new Error(`no tablet server ${id}`)
    return s
  }

  /**
   * Starts a coordinator and runs one election step. Placement is fixed (bucket b's first replica is
   * the (b+1)-th server by id). A coordinator given its own `time` runs on a clock of its own, e.g.
   * one that stands still like a hung process.
   */
  async startCoordinator(
    id: string,
    options: { config?: Configuration; store?: MetaStore; time?: TestingTime; probe?: ServerProbe } = {},
  ): Promise<CoordinatorServer> {
    const time = options.time ?? this.time
    const coordinator = new CoordinatorServer({
      config: options.config ?? testCoordinatorConfig(),
      metaStore: options.store ?? this.store,
      clock: time,
      timer: time,
      coordinatorId: id,
      assignment: { startIndex: 0, replicaShift: 0 },
      // Leases alone decide membership unless a test asks for a probe.
      probe: options.probe ?? null,
    })
    await coordinator.start()
    this.#coordinators.push(coordinator)
    await coordinator.electionTick()
    return coordinator
  }

  async connect(coordinator: CoordinatorServer): Promise<ClientConnection> {
    const connection = await ClientConnection.connect({
      host: '127.0.0.1',
      port: coordinator.boundEndpoints[0].port,
    })
    this.#connections.push(connection)
    return connection
  }

  /** Moves time on, renewing the leases of the given live servers first. */
  async advance(ms: number, renew: number[] = [...this.servers.keys()]): Promise<void> {
    for (const id of renew) await this.server(id).renew(this.catalog, TEST_SERVER_LEASE_MS + ms)
    await this.time.advance(ms)
  }

  async close(): Promise<void> {
    for (const c of this.#connections) c.close()
    await Promise.all(this.#coordinators.map(c => c.stop().catch(() => undefined)))
    await Promise.all([...this.servers.values()].map(s => s.close()))
  }
}
