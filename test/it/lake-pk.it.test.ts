import { spawnSync } from 'node:child_process'
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Connection, Table } from '@sluice/client'
import { blobStoreLakeSource, type LakeSource, planUnionScan, unionScan } from '@sluice/client/union'
import type { BlobStore } from '@sluice/core/blobstore'
import { icebergBucketForKey } from '@sluice/core/bucketing'
import { Configuration } from '@sluice/core/config'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import { IcebergKeyEncoder, type Row } from '@sluice/core/row'
import { PEER_PYTHON, peerAvailable } from '@sluice/core/testing'
import { DataTypes } from '@sluice/core/types'
import { type LocalTieringScheduler, startLocalTieringScheduler } from '@sluice/tiering'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
  waitForLeaders,
} from './support/cluster.js'
import { scanAll } from './support/scan.js'

/**
 * A primary-key table with the Iceberg lake enabled, end to end: keys are encoded and bucketed with
 * Fluss's Iceberg key encoder and bucketing (the same bytes as the official clients), lookups and
 * prefix lookups find them, tiering writes the key state at the snapshot's `fluss-offsets` into
 * Iceberg (read back by pyiceberg, whose own bucket transform must give each row's `__bucket`), a
 * union read adds the log tail, and a tablet server that rebuilds its KV store from the changelog
 * re-keys the rows with the same encoder.
 */

const BUCKETS = 4
/** pyiceberg reads the tiered table back (the rest of the suite runs without it). */
const PYICEBERG = peerAvailable('pyiceberg reads the primary-key lake table', {
  python: ['pyiceberg', 'pyarrow'],
})

/** Reads the table's current snapshot merge-on-read (pyiceberg refuses equality deletes itself). */
const PYICEBERG_READ = `
import json, sys
from pyiceberg.table import StaticTable, FileScanTask
from pyiceberg.io.pyarrow import ArrowScan
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.manifest import DataFileContent
from pyiceberg.transforms import BucketTransform

req = json.load(sys.stdin)
tbl = StaticTable.from_metadata(req['location'])
schema = tbl.schema()
snap = tbl.current_snapshot()
key_type = schema.find_field(req['key']).field_type
bucket_of = BucketTransform(req['buckets']).transform(key_type)

def read(entry, projected):
    return ArrowScan(tbl.metadata, tbl.io, projected, AlwaysTrue()).to_table([FileScanTask(entry.data_file)]).to_pylist()

entries = [e for m in snap.manifests(tbl.io) for e in m.fetch_manifest_entry(tbl.io, discard_deleted=True)]
deletes = []
for e in entries:
    if e.data_file.content != DataFileContent.EQUALITY_DELETES: continue
    names = [schema.find_field(i).name for i in e.data_file.equality_ids]
    deletes.append((e, names, {tuple(r[n] for n in names) for r in read(e, schema.select(*names))}))
rows = []
for e in entries:
    if e.data_file.content != DataFileContent.DATA: continue
    for r in read(e, schema):
        dead = any(d.sequence_number > e.sequence_number and d.data_file.partition == e.data_file.partition
                   and tuple(r[n] for n in names) in keys for d, names, keys in deletes)
        if not dead:
            rows.append({'id': r['id'], 'name': r['name'], 'amount': r['amount'],
                         'bucket': r['__bucket'], 'icebergBucket': bucket_of(r[req['key']])})
print(json.dumps({'rows': rows, 'summary': snap.summary.additional_properties}))
`

interface PyRow {
  id: number
  name: string
  amount: number
  bucket: number
  icebergBucket: number
}

function pyicebergRead(location: string): { rows: PyRow[]; summary: Record<string, string> } {
  const r = spawnSync(PEER_PYTHON, ['-c', PYICEBERG_READ], {
    input: JSON.stringify({ location, key: 'id', buckets: BUCKETS }),
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (r.status !== 0) throw new Error(`pyiceberg failed: ${r.stderr || r.error?.message}`)
  return JSON.parse(r.stdout)
}

/** The expected key state: id -> [id, name, amount]. */
type State = Map<bigint, Row>

const byId = (rows: readonly Row[]) => [...rows].sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)))

describe('primary-key lake table (Iceberg key encoding) against a local cluster', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let database: string
  let tiering: LocalTieringScheduler | undefined
  let blobStore: BlobStore | undefined
  let lake: LakeSource
  let path: TablePath
  let table: Table
  const state: State = new Map()

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-it-lakepk' })
    connection = await connect(tc.cluster)
    database = await createDatabase(connection, 'it_lakepk')
    const { aws } = tc.cluster
    blobStore = aws.blobStore()
    lake = blobStoreLakeSource(blobStore, aws.blobStoreUri as string)
    // Passes run when the test asks (runNow); the timer's own period is far beyond the test.
    tiering = await startLocalTieringScheduler({
      config: Configuration.load({ ...aws.config }),
      intervalMs: 3_600_000,
      metaStore: aws.metaStore(),
      blobStore: aws.blobStore(),
    })
  })

  afterAll(async () => {
    await tiering?.stop().catch(() => undefined)
    await blobStore?.close()
    await connection?.close().catch(() => undefined)
    await tc?.stop()
  })

  const lakeDescriptor = (schema: Schema, bucketKeys: string[] = []) =>
    TableDescriptor.builder()
      .schema(schema)
      .distributedBy(BUCKETS, ...bucketKeys)
      .property('table.datalake.enabled', 'true')
      .property('table.datalake.freshness', '10s')
      .build()

  const icebergBucket = (encoder: IcebergKeyEncoder, row: Row) =>
    icebergBucketForKey(encoder.encodeKey(row), BUCKETS)

  async function lookupAll(ids: readonly bigint[]): Promise<(Row | null)[]> {
    const lookuper = table.newLookup().createLookuper()
    return Promise.all(ids.map(async id => (await lookuper.lookup([id])).singletonRow()))
  }

  async function expectLookupsMatch(): Promise<void> {
    const ids = Array.from({ length: 130 }, (_, i) => BigInt(i))
    const found = await lookupAll(ids)
    expect(found).toEqual(ids.map(id => state.get(id) ?? null))
  }

  it('writes, deletes and looks up keys placed in Iceberg buckets', async () => {
    const schema = Schema.newBuilder()
      .column('id', DataTypes.BIGINT())
      .column('name', DataTypes.STRING())
      .column('amount', DataTypes.INT())
      .primaryKey('id')
      .build()
    path = await createTable(connection, database, lakeDescriptor(schema), 'lake_pk')
    table = await connection.getTable(path)
    const info = table.getTableInfo()
    expect(info.properties['table.datalake.format']).toBe('iceberg')
    expect(info.properties['table.kv.format-version']).toBe('2')

    const writer = table.newUpsert().createWriter()
    for (let i = 0; i < 120; i++) {
      const row: Row = [BigInt(i), `n${i}`, i]
      writer.upsert(row)
      state.set(BigInt(i), row)
    }
    for (let i = 3; i < 120; i += 10) {
      writer.delete([BigInt(i), null, null])
      state.delete(BigInt(i))
    }
    for (let i = 0; i < 120; i += 7) {
      if (!state.has(BigInt(i))) continue
      const row: Row = [BigInt(i), `u${i}`, i * 100]
      writer.upsert(row)
      state.set(BigInt(i), row)
    }
    await writer.close()
    await expectLookupsMatch()

    // Every changelog record sits in the bucket Iceberg's bucketing gives its key.
    const ends = await connection.getAdmin().listOffsets(path, [0, 1, 2, 3], 'latest')
    const total = [...ends.values()].reduce((a, b) => a + b, 0)
    const records = await scanAll(table, total)
    const encoder = new IcebergKeyEncoder(info.rowType, ['id'])
    let seen = 0
    for (const [bucket, list] of records) {
      for (const r of list) expect(icebergBucket(encoder, r.row), `id ${r.row[0]}`).toBe(bucket)
      seen += list.length
    }
    expect(seen).toBe(total)
    expect(records.size).toBe(BUCKETS)
  })

  it('prefix-looks up a lake table whose bucket key is part of its primary key', async () => {
    const schema = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('seq', DataTypes.INT())
      .column('v', DataTypes.STRING())
      .primaryKey('id', 'seq')
      .build()
    const prefixPath = await createTable(connection, database, lakeDescriptor(schema, ['id']), 'lake_prefix')
    const prefixTable = await connection.getTable(prefixPath)
    const writer = prefixTable.newUpsert().createWriter()
    for (let id = 0; id < 8; id++) for (const seq of [2, 0, 1]) writer.upsert([id, seq, `${id}/${seq}`])
    writer.delete([5, 1, null])
    await writer.close()

    const prefix = prefixTable.newLookup().lookupBy(['id']).createLookuper()
    expect((await prefix.lookup([4])).rows()).toEqual([
      [4, 0, '4/0'],
      [4, 1, '4/1'],
      [4, 2, '4/2'],
    ])
    expect((await prefix.lookup([5])).rows()).toEqual([
      [5, 0, '5/0'],
      [5, 2, '5/2'],
    ])
    expect((await prefix.lookup([99])).rows()).toEqual([])
    const point = prefixTable.newLookup().createLookuper()
    expect((await point.lookup([7, 1])).singletonRow()).toEqual([7, 1, '7/1'])
    const encoder = new IcebergKeyEncoder(prefixTable.getTableInfo().rowType, ['id'])
    const records = await scanAll(prefixTable, 25)
    for (const [bucket, list] of records) {
      for (const r of list) expect(icebergBucket(encoder, r.row)).toBe(bucket)
    }
  })

  it('tiers the key state at the snapshot offsets into Iceberg, bucketed as Iceberg buckets', async () => {
    const ends = await connection.getAdmin().listOffsets(path, [0, 1, 2, 3], 'latest')
    const plan = await waitUntil(
      async () => {
        await tiering?.runNow()
        const p = await planUnionScan(connection, path, { lake })
        return p.buckets.every(b => b.startOffset === ends.get(b.bucket)) ? p : undefined
      },
      { timeoutMs: 90_000, intervalMs: 1000, what: 'a lake snapshot covering the whole log' },
    )
    const lakeRows: Row[] = []
    for await (const r of unionScan(connection, path, { lake })) {
      expect(r.source).toBe('lake')
      lakeRows.push(r.row)
    }
    expect(byId(lakeRows)).toEqual(byId([...state.values()]))

    if (!PYICEBERG) return
    const read = pyicebergRead(plan.lake?.metadataLocation as string)
    expect(read.summary['commit-user']).toBeDefined()
    const pyRows = read.rows.map(r => [BigInt(r.id), r.name, r.amount] as Row)
    expect(byId(pyRows)).toEqual(byId([...state.values()]))
    for (const r of read.rows) expect(r.bucket, `__bucket of id ${r.id}`).toBe(r.icebergBucket)
  })

  it('a union read merges the lake with the changes after it', async () => {
    const writer = table.newUpsert().createWriter()
    for (let i = 120; i < 130; i++) {
      writer.upsert([BigInt(i), `n${i}`, i])
      state.set(BigInt(i), [BigInt(i), `n${i}`, i])
    }
    writer.delete([1n, null, null])
    state.delete(1n)
    writer.upsert([2n, 'late', -2])
    state.set(2n, [2n, 'late', -2])
    await writer.close()
    const rows: Row[] = []
    const sources = new Set<string>()
    for await (const r of unionScan(connection, path, { lake })) {
      rows.push(r.row)
      sources.add(r.source)
    }
    expect(byId(rows)).toEqual(byId([...state.values()]))
    expect(sources).toEqual(new Set(['lake', 'log']))
  })

  it('a tablet server rebuilding its KV store from the changelog re-keys the rows', async () => {
    const cluster = (tc as TestCluster).cluster
    await cluster.stopTabletServer(1)
    const tableDir = join(tc?.dataDir as string, 'tablet-server-1', database)
    for (const dir of await readdir(tableDir)) {
      if (!dir.startsWith(`${path.tableName}-`)) continue
      for (const sub of await readdir(join(tableDir, dir))) {
        if (sub.startsWith('kv-')) await rm(join(tableDir, dir, sub), { recursive: true, force: true })
      }
    }
    await cluster.startTabletServer(1)
    await waitForLeaders(connection, path, 60_000)
    await waitUntil(
      async () => {
        await expectLookupsMatch()
        return true
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'lookups to match after the KV rebuild' },
    )
  })
})
