import { Connection } from '@sluice/client'
import { Catalog, type CoordinatorLeaseRecord } from '@sluice/core/control-plane'
import { isFlussError } from '@sluice/core/errors'
import { databaseDescriptor, Schema, TableDescriptor, tablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { ClientConnection } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueName, waitUntil } from '../harness/index.js'
import { startReadyCluster, type TestCluster, waitForLeaders } from '../it/support/cluster.js'
import { SUITE_TIMEOUT_MS, type SuiteVariant, suiteTitle } from './suite-variant.js'

/** Two coordinator processes and one tablet server, with a short coordinator lease. */
const LEASE_MS = 3000
const SERVER_CONFIG = {
  'sluice.coordinator.lease-duration': `${LEASE_MS}ms`,
  'sluice.coordinator.lease-renew-interval': '500ms',
  'sluice.coordinator.membership-poll-interval': '200ms',
  'sluice.tablet-server.lease-duration': '3s',
  'sluice.tablet-server.heartbeat-interval': '500ms',
}

/** The cluster and direct access to the coordinator lease in the metadata store. */
export class CoordinatorHaFixture {
  #tc: TestCluster | undefined
  #store: MetaStore | undefined
  #catalog: Catalog | undefined

  constructor(readonly variant: SuiteVariant) {}

  async start(): Promise<void> {
    const extra = this.variant.cluster?.() ?? {}
    this.#tc = await startReadyCluster({
      coordinators: 2,
      tabletServers: 1,
      prefix: 'sluice-fault-ha',
      ...extra,
      serverConfig: { ...SERVER_CONFIG, ...extra.serverConfig },
    })
    this.#store = this.#tc.cluster.aws.metaStore()
    this.#catalog = new Catalog(this.#store)
  }

  async stop(): Promise<void> {
    await this.#store?.close().catch(() => undefined)
    await this.#tc?.stop()
  }

  get tc(): TestCluster {
    if (this.#tc === undefined) throw new Error('the coordinator HA fixture was not started')
    return this.#tc
  }

  /** The coordinator process index holding the live lease. */
  async active(): Promise<{ index: number; lease: CoordinatorLeaseRecord }> {
    const catalog = this.#catalog
    if (catalog === undefined) throw new Error('the coordinator HA fixture was not started')
    const lease = await waitUntil(() => catalog.activeCoordinator(), {
      timeoutMs: 15_000,
      what: 'an active coordinator',
    })
    const index = this.tc.cluster.coordinators.findIndex(c => c.running && c.port === lease.port)
    expect(index).toBeGreaterThanOrEqual(0)
    return { index, lease }
  }

  /** A client bootstrapped on one coordinator only. */
  connectTo(index: number): Promise<Connection> {
    const c = this.tc.cluster.coordinators[index]
    return Connection.create({ 'bootstrap.servers': `${c.host}:${c.port}`, 'client.request-timeout': '5s' })
  }
}

/** Coordinator high availability across processes, registered as one vitest suite. */
export function coordinatorHaSuite(variant: SuiteVariant = {}): void {
  describe(suiteTitle('coordinator high availability across processes', variant), () => {
    const f = new CoordinatorHaFixture(variant)
    beforeAll(() => f.start(), SUITE_TIMEOUT_MS)
    afterAll(() => f.stop(), SUITE_TIMEOUT_MS)
    it(
      'the standby takes over within lease + 5 s after kill -9, DDL works, the restarted one is a standby',
      () => coordinatorTakeoverScenario(f),
      SUITE_TIMEOUT_MS,
    )
  })
}

export async function coordinatorTakeoverScenario(f: CoordinatorHaFixture): Promise<void> {
  const before = await f.active()
  const standbyIndex = 1 - before.index
  const killedAtMs = Date.now()
  await f.tc.cluster.killCoordinator(before.index)

  const client = await f.connectTo(standbyIndex)
  try {
    const database = uniqueName('ha_db')
    await waitUntil(
      async () => {
        await client.getAdmin().createDatabase(database, databaseDescriptor(), true)
        return true
      },
      { timeoutMs: LEASE_MS + 5000, intervalMs: 100, what: 'DDL on the standby' },
    )
    const takeoverMs = Date.now() - killedAtMs
    console.log(`coordinator takeover after kill -9: DDL accepted by the standby ${takeoverMs} ms later`)
    expect(takeoverMs).toBeLessThanOrEqual(LEASE_MS + 5000)
    const after = await f.active()
    expect(after.index).toBe(standbyIndex)
    expect(after.lease.coordinatorEpoch).toBeGreaterThan(before.lease.coordinatorEpoch)

    // DDL and the data path work under the new coordinator.
    const path = tablePath(database, uniqueName('t'))
    const schema = Schema.newBuilder().column('id', DataTypes.BIGINT()).build()
    await client
      .getAdmin()
      .createTable(path, TableDescriptor.builder().schema(schema).distributedBy(2).build())
    await waitForLeaders(client, path)
    const writer = (await client.getTable(path)).newAppend().createWriter()
    await Promise.all([0n, 1n, 2n].map(id => writer.appendWithResult([id])))
    await writer.close()

    await expectRestartedIsStandby(f, before.index, standbyIndex, after.lease.coordinatorEpoch)
  } finally {
    await client.close()
  }
}

/** The old coordinator, restarted, stays a standby: it refuses DDL and the lease does not move. */
async function expectRestartedIsStandby(
  f: CoordinatorHaFixture,
  restartedIndex: number,
  activeIndex: number,
  coordinatorEpoch: number,
): Promise<void> {
  const restarted = await f.tc.cluster.startCoordinator(restartedIndex)
  const toRestarted = await ClientConnection.connect({ host: restarted.host, port: restarted.port })
  try {
    await new Promise(resolve => setTimeout(resolve, 2 * LEASE_MS))
    const refused = await toRestarted
      .request('CREATE_DATABASE', { databaseName: uniqueName('nope'), ignoreIfExists: false })
      .then(
        () => undefined,
        e => e,
      )
    expect(isFlussError(refused, 'INVALID_COORDINATOR_EXCEPTION')).toBe(true)
    const still = await f.active()
    expect(still.index).toBe(activeIndex)
    expect(still.lease.coordinatorEpoch).toBe(coordinatorEpoch)
  } finally {
    toRestarted.close()
  }
}
