import type { Connection, Table } from '@sluice/client'
import { Catalog } from '@sluice/core/control-plane'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { MetaStore } from '@sluice/core/metastore'
import { DataTypes, notNull } from '@sluice/core/types'
import { sleep } from '@sluice/core/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from '../it/support/cluster.js'
import { SUITE_TIMEOUT_MS, type SuiteVariant, suiteTitle } from './suite-variant.js'

/**
 * kill -9 of the leader of a primary-key bucket during acks=all upserts (RF=3, idempotent writer):
 * the new leader rebuilds its KV state from its log, and its lookups show every acknowledged
 * upsert (or a later one of the same key whose acknowledgement was lost in the kill).
 */
const LEASE_MS = 3000
const SERVER_CONFIG = {
  'sluice.tablet-server.lease-duration': `${LEASE_MS}ms`,
  'sluice.tablet-server.heartbeat-interval': '500ms',
  'sluice.coordinator.lease-duration': `${LEASE_MS}ms`,
  'sluice.coordinator.lease-renew-interval': '500ms',
  'sluice.coordinator.membership-poll-interval': '200ms',
  'sluice.coordinator.notify-retry-backoff': '100ms',
  'sluice.coordinator.notify-retry-max-backoff': '1s',
  'log.replica.max-lag-time': '2s',
  'log.replica.min-in-sync-replicas-number': '2',
  'log.replica.fetch.backoff-interval': '200ms',
}
const WRITER_CONFIG = {
  'client.writer.acks': 'all',
  'client.writer.enable-idempotence': 'true',
  'client.writer.batch-timeout': '5ms',
  'client.request-timeout': '5s',
}
const KEYS = 200
const SCHEMA = Schema.newBuilder()
  .column('id', notNull(DataTypes.BIGINT()))
  .column('seq', DataTypes.BIGINT())
  .primaryKey('id')
  .build()

/** Upserts (id = seq % KEYS, seq) until stopped, recording per key what was sent and acknowledged. */
class UpsertLoop {
  /** Per key: the highest acknowledged seq. */
  readonly acked = new Map<number, number>()
  /** Per key: every seq sent. */
  readonly sent = new Map<number, number[]>()
  readonly failed: unknown[] = []
  ackCount = 0
  #seq = 0
  #stopped = false
  #loop: Promise<void> | undefined
  readonly #pending = new Set<Promise<unknown>>()

  constructor(private readonly table: Table) {}

  start(): this {
    const writer = this.table.newUpsert().createWriter()
    this.#loop = (async () => {
      while (!this.#stopped) {
        for (let k = 0; k < 10 && !this.#stopped; k++) {
          const seq = this.#seq++
          const id = seq % KEYS
          this.sent.set(id, [...(this.sent.get(id) ?? []), seq])
          const p = writer.upsertWithResult([BigInt(id), BigInt(seq)]).then(
            () => {
              this.ackCount++
              this.acked.set(id, Math.max(this.acked.get(id) ?? -1, seq))
            },
            e => this.failed.push(e),
          )
          this.#pending.add(p)
          p.finally(() => this.#pending.delete(p))
        }
        await sleep(10)
        while (this.#pending.size > 500) await sleep(20)
      }
      await writer.close().catch(e => this.failed.push(e))
      await Promise.all(this.#pending)
    })()
    return this
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#loop
  }
}

export function pkFailoverSuite(variant: SuiteVariant = {}): void {
  describe(suiteTitle('primary-key failover across tablet server processes', variant), () => {
    let tc: TestCluster
    let admin: Connection
    let store: MetaStore
    let path: TablePath

    beforeAll(async () => {
      const extra = variant.cluster?.() ?? {}
      tc = await startReadyCluster({
        tabletServers: 3,
        prefix: 'sluice-fault-pk',
        ...extra,
        serverConfig: { ...SERVER_CONFIG, ...extra.serverConfig },
      })
      admin = await connect(tc.cluster)
      store = tc.cluster.aws.metaStore()
      const database = await createDatabase(admin, 'pk_failover')
      const descriptor = TableDescriptor.builder()
        .schema(SCHEMA)
        .distributedBy(1)
        .property('table.replication.factor', '3')
        .build()
      path = await createTable(admin, database, descriptor, 'upserts')
    }, SUITE_TIMEOUT_MS)

    afterAll(async () => {
      await admin?.close().catch(() => undefined)
      await store?.close().catch(() => undefined)
      await tc?.stop()
    }, SUITE_TIMEOUT_MS)

    async function leaderOf(): Promise<number> {
      const tableId = (await admin.getAdmin().getTableInfo(path)).tableId
      const bucket = await new Catalog(store).getBucket({ tableId, partitionId: null, bucket: 0 })
      const leader = bucket?.leaderAndIsr.leader
      if (leader === null || leader === undefined) throw new Error('the bucket has no leader')
      return leader
    }

    it(
      'kill -9 of the leader during acks=all upserts: the new leader looks up the acknowledged state',
      async () => {
        const writerConnection = await connect(tc.cluster, WRITER_CONFIG)
        let loop: UpsertLoop | undefined
        try {
          loop = new UpsertLoop(await writerConnection.getTable(path)).start()
          await waitUntil(() => (loop?.ackCount ?? 0) >= 600, {
            timeoutMs: 30_000,
            what: '600 acknowledged upserts',
          })
          const leader = await leaderOf()
          await tc.cluster.killTabletServer(leader)
          const ackedAtKill = loop.ackCount
          await waitUntil(() => (loop?.ackCount ?? 0) >= ackedAtKill + 300, {
            timeoutMs: 30_000,
            what: 'upserts acknowledged by the new leader',
          })
          await loop.stop()
          expect(await leaderOf()).not.toBe(leader)
        } finally {
          await loop?.stop()
          await writerConnection.close().catch(() => undefined)
        }

        const reader = await connect(tc.cluster)
        try {
          const lookuper = (await reader.getTable(path)).newLookup().createLookuper()
          const problems: string[] = []
          for (let id = 0; id < KEYS; id++) {
            const acked = loop.acked.get(id)
            const rows = (await lookuper.lookup([BigInt(id)])).rows()
            const found = rows[0] === undefined ? undefined : Number(rows[0][1])
            if (acked === undefined) continue
            // The acknowledged upsert, or a later one of the key whose acknowledgement was lost.
            const allowed = (loop.sent.get(id) ?? []).filter(seq => seq >= acked)
            if (found === undefined || !allowed.includes(found))
              problems.push(`key ${id}: acknowledged seq ${acked}, looked up ${found ?? 'nothing'}`)
          }
          expect(problems.slice(0, 20)).toEqual([])
          expect(loop.acked.size).toBe(KEYS)
        } finally {
          await reader.close()
        }
      },
      SUITE_TIMEOUT_MS,
    )
  })
}
