import { readFileSync } from 'node:fs'
import type { Connection } from '@sluice/client'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from './support/cluster.js'
import { type Scrape, scrape } from './support/prometheus.js'

const TS = 'fluss_tabletserver_'

describe('Prometheus metrics of a local cluster', () => {
  let tc: TestCluster
  let connection: Connection
  let database: string

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 3,
      prefix: 'sluice-it-metrics',
      metrics: true,
      serverConfig: { 'log.replica.max-lag-time': '2s', 'remote.log.task-interval-duration': '1s' },
    })
    connection = await connect(tc.cluster)
    database = await createDatabase(connection)
  })

  afterAll(async () => {
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  async function leaderScrape(path: TablePath): Promise<{ id: number; scrape: () => Promise<Scrape> }> {
    const [location] = await connection.getAdmin().getBucketLocations(path)
    const id = location?.leader as number
    const url = tc.cluster.tablet(id).metricsUrl as string
    return { id, scrape: () => scrape(url) }
  }

  it('every server serves /metrics (Fluss names, Node metrics), and other paths are 404', async () => {
    const coordinator = await scrape(tc.cluster.coordinators[0]?.metricsUrl as string)
    expect(coordinator.value('fluss_coordinator_activeCoordinatorCount')).toBe(1)
    expect(coordinator.value('fluss_coordinator_activeTabletServerCount')).toBe(3)
    for (const t of tc.cluster.tablets.values()) {
      const s = await scrape(t.metricsUrl as string)
      expect(s.has(`${TS}replicaCount`)).toBe(true)
      expect(s.has('nodejs_eventloop_lag_p99_seconds')).toBe(true)
      expect(s.has('nodejs_heap_size_used_bytes')).toBe(true)
      expect(s.text).toContain(`server_id="${t.options.name.split('-').pop()}"`)
    }
    const coordinatorUrl = tc.cluster.coordinators[0]?.metricsUrl ?? ''
    const other = await fetch(coordinatorUrl.replace('/metrics', '/x'))
    expect(other.status).toBe(404)
  })

  it('appends move bytes and messages in by what was appended, requests by the requests sent', async () => {
    const descriptor = TableDescriptor.builder()
      .schema(Schema.newBuilder().column('id', DataTypes.BIGINT()).column('v', DataTypes.STRING()).build())
      .distributedBy(1)
      .property('table.replication.factor', 3)
      .build()
    const path = await createTable(connection, database, descriptor, 'metrics_log')
    const leader = await leaderScrape(path)
    const labels = { database, table: path.tableName }
    const bucket = { ...labels, bucket: '0' }
    const before = await leader.scrape()
    const writer = (await connection.getTable(path)).newAppend().createWriter()
    const FLUSHES = 20
    const ROWS_PER_FLUSH = 5
    for (let f = 0; f < FLUSHES; f++) {
      for (let r = 0; r < ROWS_PER_FLUSH; r++)
        writer.append([BigInt(f * ROWS_PER_FLUSH + r), `row-${f}-${r}`])
      await writer.flush() // one PRODUCE_LOG request of one batch
    }
    await writer.close()
    const after = await leader.scrape()
    const delta = (name: string, l: Record<string, string> = labels) =>
      after.value(name, l) - before.value(name, l)
    const logBytes = delta(`${TS}table_bucket_logicalStorage_logSize`, bucket)
    expect(logBytes).toBeGreaterThan(0)
    expect(delta(`${TS}table_bytesIn_total`)).toBe(logBytes)
    expect(delta(`${TS}table_messagesIn_total`)).toBe(FLUSHES * ROWS_PER_FLUSH)
    expect(delta(`${TS}table_totalProduceLogRequests_total`)).toBe(FLUSHES)
    expect(delta(`${TS}table_failedProduceLogRequests_total`)).toBe(0)
    expect(delta(`${TS}request_requests_total`, { request: 'produceLog' })).toBe(FLUSHES)
    expect(delta(`${TS}request_requestProcessTimeMs_count`, { request: 'produceLog' })).toBe(FLUSHES)
    expect(delta(`${TS}table_bucket_log_endOffset`, bucket)).toBe(FLUSHES * ROWS_PER_FLUSH)

    const scanner = (await connection.getTable(path)).newScan().createLogScanner()
    scanner.subscribeFromBeginning(0)
    let read = 0
    await waitUntil(
      async () => {
        read += (await scanner.poll(500)).count
        return read >= FLUSHES * ROWS_PER_FLUSH
      },
      { timeoutMs: 20_000, what: 'the appended rows read back' },
    )
    await scanner.close()
    const scanned = await leader.scrape()
    expect(
      scanned.value(`${TS}table_bytesOut_total`, labels) - after.value(`${TS}table_bytesOut_total`, labels),
    ).toBe(logBytes)
  })

  it('lookups move the lookup request counters by the requests sent', async () => {
    const descriptor = TableDescriptor.builder()
      .schema(
        Schema.newBuilder()
          .column('id', DataTypes.BIGINT())
          .column('v', DataTypes.STRING())
          .primaryKey('id')
          .build(),
      )
      .distributedBy(1)
      .property('table.replication.factor', 1)
      .build()
    const path = await createTable(connection, database, descriptor, 'metrics_pk')
    const table = await connection.getTable(path)
    const writer = table.newUpsert().createWriter()
    for (let i = 0; i < 10; i++) writer.upsert([BigInt(i), `v${i}`])
    await writer.close()
    const leader = await leaderScrape(path)
    const labels = { database, table: path.tableName }
    const before = await leader.scrape()
    const lookuper = table.newLookup().createLookuper()
    const LOOKUPS = 30
    for (let i = 0; i < LOOKUPS; i++) await lookuper.lookup([BigInt(i % 12)]) // awaited: one request each
    const after = await leader.scrape()
    const delta = (name: string, l: Record<string, string> = labels) =>
      after.value(name, l) - before.value(name, l)
    expect(delta(`${TS}table_totalLookupRequests_total`)).toBe(LOOKUPS)
    expect(delta(`${TS}request_requests_total`, { request: 'lookup' })).toBe(LOOKUPS)
    expect(delta(`${TS}table_failedLookupRequests_total`)).toBe(0)
    expect(before.value(`${TS}table_messagesIn_total`, labels)).toBe(10)
    expect(after.has(`${TS}table_rocksdbMemTableMemoryUsageTotal`)).toBe(true)
  })

  it('remoteLogCopyLag counts what is not in remote storage yet, and falls once the segment is copied', async () => {
    // A lake table's active segment is rolled for freshness, then copied by the remote log task (every 1 s).
    const descriptor = TableDescriptor.builder()
      .schema(Schema.newBuilder().column('id', DataTypes.BIGINT()).build())
      .distributedBy(1)
      .property('table.replication.factor', 1)
      .property('table.datalake.enabled', 'true')
      .property('table.datalake.freshness', '6s')
      .build()
    const path = await createTable(connection, database, descriptor, 'metrics_remote')
    const leader = await leaderScrape(path)
    const bucket = { database, table: path.tableName, bucket: '0' }
    const writer = (await connection.getTable(path)).newAppend().createWriter()
    const ROWS = 50
    for (let i = 0; i < ROWS; i++) writer.append([BigInt(i)])
    await writer.flush()
    const lag = async () => (await leader.scrape()).value(`${TS}table_bucket_remoteLogCopyLag`, bucket)
    // The active segment holds them until it is 3 s old (half the freshness), then it is rolled and copied.
    expect(await lag()).toBe(ROWS)
    await waitUntil(async () => (await lag()) === 0, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'the rolled segment to reach remote storage',
    })
    const after = await leader.scrape()
    expect(after.value(`${TS}table_bucket_remoteLogEndOffset`, bucket)).toBe(ROWS)
    expect(after.value(`${TS}table_bucket_log_highWatermark`, bucket)).toBe(ROWS)
  })

  it('underReplicated rises when a follower is killed and falls when it is back', async () => {
    const descriptor = TableDescriptor.builder()
      .schema(Schema.newBuilder().column('id', DataTypes.BIGINT()).build())
      .distributedBy(1)
      .property('table.replication.factor', 3)
      .build()
    const path = await createTable(connection, database, descriptor, 'metrics_isr')
    const [location] = await connection.getAdmin().getBucketLocations(path)
    const leaderId = location?.leader as number
    const follower = (location?.replicas ?? []).find(id => id !== leaderId) as number
    const url = tc.cluster.tablet(leaderId).metricsUrl as string
    const expandsBefore = (await scrape(url)).value(`${TS}isrExpands_total`)
    // A new table's followers join the ISR once they have caught up: killed before that, the
    // bucket was under-replicated already and nothing would rise.
    await waitUntil(async () => (await scrape(url)).value(`${TS}underReplicated`) === 0, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'every follower of the new table to be in the ISR',
    })
    await tc.cluster.killTabletServer(follower)
    await waitUntil(async () => (await scrape(url)).value(`${TS}underReplicated`) > 0, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'underReplicated to rise after the follower was killed',
    })
    await tc.cluster.startTabletServer(follower)
    await waitUntil(async () => (await scrape(url)).value(`${TS}underReplicated`) === 0, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'underReplicated to fall back to 0 once the follower caught up',
    })
    // The dead server left the ISR through the coordinator; the leader took it back itself.
    expect((await scrape(url)).value(`${TS}isrExpands_total`)).toBeGreaterThan(expandsBefore)
  })

  it('every metric the Grafana dashboard charts is served by a process of the cluster', async () => {
    const dashboard = readFileSync(
      new URL('../../docs/grafana/sluice-dashboard.json', import.meta.url),
      'utf8',
    )
    const charted = new Set(dashboard.match(/fluss_(?:coordinator|tabletserver|gateway)_\w+/g) ?? [])
    if (tc.cluster.gateway === undefined) await tc.cluster.startGateway('127.0.0.1:0')
    const texts = await Promise.all(tc.cluster.metricsEndpoints.map(async e => (await scrape(e.url)).text))
    const served = texts.join('\n')
    const missing = [...charted].filter(name => !served.includes(`# TYPE ${name.replace(/_bucket$/, '')} `))
    expect(missing).toEqual([])
  })

  it('the gateway serves its request metrics', async () => {
    await tc.cluster.gateway?.stop()
    await tc.cluster.startGateway('127.0.0.1:0')
    const url = tc.cluster.gateway?.metricsUrl as string
    const health = await fetch(`${tc.cluster.gatewayUrl}/v1/databases`, {
      headers: { accept: 'application/json' },
    })
    expect(health.status).toBe(200)
    const s = await scrape(url)
    expect(s.value('fluss_gateway_request_requests_total', { method: 'GET' })).toBeGreaterThanOrEqual(1)
  })
})
