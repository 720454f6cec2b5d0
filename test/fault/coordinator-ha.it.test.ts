import { Connection } from '@sluice/client'
import { Catalog, type CoordinatorLeaseRecord } from '@sluice/core/catalog'
import { isFlussError } from '@sluice/core/errors'
import { databaseDescriptor, Schema, TableDescriptor, tablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { ServerConnection } from '@sluice/core/rpc'
import { DataTypes } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueName, waitUntil } from '../harness/index.js'
import { startReadyCluster, type TestCluster, waitForLeaders } from '../it/support/cluster.js'

/** Two coordinator processes and one tablet server, with a short coordinator lease. */
const LEASE_MS = 3000
const SERVER_CONFIG = {
  'sluice.coordinator.lease-duration': `${LEASE_MS}ms`,
  'sluice.coordinator.lease-renew-interval': '500ms',
  'sluice.coordinator.membership-poll-interval': '200ms',
  'sluice.tablet-server.lease-duration': '3s',
  'sluice.tablet-server.heartbeat-interval': '500ms',
}

describe('coordinator high availability across processes', () => {
  let tc: TestCluster
  let store: MetaStore
  let catalog: Catalog

  beforeAll(async () => {
    tc = await startReadyCluster({
      coordinators: 2,
      tabletServers: 1,
      prefix: 'sluice-fault-ha',
      serverConfig: SERVER_CONFIG,
    })
    store = tc.cluster.aws.metaStore()
    catalog = new Catalog(store)
  })

  afterAll(async () => {
    await store?.close().catch(() => undefined)
    await tc?.stop()
  })

  /** The coordinator process index holding the live lease. */
  async function active(): Promise<{ index: number; lease: CoordinatorLeaseRecord }> {
    const lease = await waitUntil(() => catalog.activeCoordinator(), {
      timeoutMs: 15_000,
      what: 'an active coordinator',
    })
    const index = tc.cluster.coordinators.findIndex(c => c.running && c.port === lease.port)
    expect(index).toBeGreaterThanOrEqual(0)
    return { index, lease }
  }

  /** A client bootstrapped on one coordinator only. */
  function connectTo(index: number): Promise<Connection> {
    const c = tc.cluster.coordinators[index]
    return Connection.create({ 'bootstrap.servers': `${c.host}:${c.port}`, 'client.request-timeout': '5s' })
  }

  it('the standby takes over within lease + 5 s after kill -9, DDL works, the restarted one is a standby', async () => {
    const before = await active()
    const standbyIndex = 1 - before.index
    const killedAtMs = Date.now()
    await tc.cluster.killCoordinator(before.index)

    const client = await connectTo(standbyIndex)
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
      const after = await active()
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

      // The old one, restarted, stays a standby: it refuses DDL and the lease does not move.
      const restarted = await tc.cluster.startCoordinator(before.index)
      const toRestarted = await ServerConnection.connect({ host: restarted.host, port: restarted.port })
      try {
        await new Promise(resolve => setTimeout(resolve, 2 * LEASE_MS))
        const refused = await toRestarted
          .request('CREATE_DATABASE', { databaseName: uniqueName('nope'), ignoreIfExists: false })
          .then(
            () => undefined,
            e => e,
          )
        expect(isFlussError(refused, 'INVALID_COORDINATOR_EXCEPTION')).toBe(true)
        const still = await active()
        expect(still.index).toBe(standbyIndex)
        expect(still.lease.coordinatorEpoch).toBe(after.lease.coordinatorEpoch)
      } finally {
        toRestarted.close()
      }
    } finally {
      await client.close()
    }
  })
})
