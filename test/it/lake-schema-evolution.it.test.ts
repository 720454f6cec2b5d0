import { spawnSync } from 'node:child_process'
import type { Connection, RowInput } from '@sluice/client'
import { blobStoreLakeSource, type LakeSource, planUnionScan, unionScan } from '@sluice/client/union'
import type { BlobStore } from '@sluice/core/blobstore'
import { Configuration } from '@sluice/core/config'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { PEER_PYTHON, peerAvailable } from '@sluice/core/testing'
import { DataTypes, notNull } from '@sluice/core/types'
import { type LocalTieringScheduler, startLocalTieringScheduler } from '@sluice/tiering'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitUntil } from '../harness/index.js'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from './support/cluster.js'

/**
 * A lake-enabled log table altered after rows were tiered keeps tiering: the next round evolves the
 * Iceberg schema by field id, the union read (lake + log) returns every row in the new schema, and
 * pyiceberg reads the same rows from the evolved table.
 */

const PYICEBERG = peerAvailable('pyiceberg reads the evolved lake table', {
  python: ['pyiceberg', 'pyarrow'],
})

const PYICEBERG_SCAN = `
import json, sys
from pyiceberg.table import StaticTable
tbl = StaticTable.from_metadata(sys.stdin.read().strip())
rows = tbl.scan(selected_fields=('id', 'qty', 'title', 'region')).to_arrow().to_pylist()
print(json.dumps({'rows': rows, 'fields': [[f.field_id, f.name, str(f.field_type)] for f in tbl.schema().fields]}))
`

const byId = (rows: readonly Row[]) => [...rows].sort((a, b) => Number((a[0] as bigint) - (b[0] as bigint)))

describe('a lake table altered after rows were tiered', () => {
  let tc: TestCluster | undefined
  let connection: Connection
  let tiering: LocalTieringScheduler | undefined
  let blobStore: BlobStore | undefined
  let lake: LakeSource

  beforeAll(async () => {
    tc = await startReadyCluster({ tabletServers: 1, prefix: 'sluice-it-lakeevo' })
    connection = await connect(tc.cluster)
    const { aws } = tc.cluster
    blobStore = aws.blobStore()
    lake = blobStoreLakeSource(blobStore, aws.blobStoreUri as string)
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

  /** Runs tiering passes until the lake snapshot covers every bucket's log; its metadata location. */
  async function tierAll(path: TablePath): Promise<string> {
    const ends = await connection.getAdmin().listOffsets(path, [0], 'latest')
    const passes: unknown[] = []
    const plan = await waitUntil(
      async () => {
        const pass = await tiering?.runNow()
        if (pass !== undefined && pass.rounds.length > 0) passes.push(pass.rounds)
        const p = await planUnionScan(connection, path, { lake })
        return p.buckets.every(b => b.startOffset === ends.get(b.bucket)) ? p : undefined
      },
      { timeoutMs: 90_000, intervalMs: 1000, what: 'a lake snapshot covering the whole log' },
    ).catch((e: Error) => {
      const rounds = JSON.stringify(passes.slice(-3), (_, v) => (typeof v === 'bigint' ? String(v) : v))
      throw new Error(`${e.message}; last tiering rounds: ${rounds}`)
    })
    return plan.lake?.metadataLocation as string
  }

  async function unionRows(path: TablePath): Promise<{ rows: Row[]; sources: Set<string> }> {
    const rows: Row[] = []
    const sources = new Set<string>()
    for await (const r of unionScan(connection, path, { lake })) {
      rows.push(r.row)
      sources.add(r.source)
    }
    return { rows: byId(rows), sources }
  }

  it('keeps tiering through add, rename, widen and drop; union read and pyiceberg agree', async () => {
    const schema = Schema.newBuilder()
      .column('id', notNull(DataTypes.BIGINT()))
      .column('qty', DataTypes.INT())
      .column('label', DataTypes.STRING())
      .column('tmp', DataTypes.STRING())
      .build()
    const database = await createDatabase(connection, 'it_lakeevo')
    const path = await createTable(
      connection,
      database,
      TableDescriptor.builder()
        .schema(schema)
        .distributedBy(1)
        .property('table.datalake.enabled', 'true')
        .property('table.datalake.freshness', '10s')
        .build(),
      'lake_evo',
    )
    const first = await connection.getTable(path)
    const append = async (t: typeof first, rows: readonly RowInput[]) => {
      const w = t.newAppend().createWriter()
      for (const r of rows) w.append(r)
      await w.close()
    }
    await append(
      first,
      Array.from({ length: 10 }, (_, i) => [BigInt(i), i, `l${i}`, `t${i}`]),
    )
    await tierAll(path)

    const admin = connection.getAdmin()
    await admin.alterTable(path, {
      addColumns: [{ name: 'region', type: DataTypes.STRING(), defaultValue: 'eu' }],
    })
    await admin.alterTable(path, {
      renameColumns: [{ name: 'label', newName: 'title' }],
      modifyColumns: [{ name: 'qty', type: DataTypes.BIGINT() }],
    })
    await admin.alterTable(path, { dropColumns: ['tmp'] })
    await append(first, [[10n, 10, 'l10', 't10']]) // a writer of the first schema
    const last = await connection.getTable(path)
    await append(
      last,
      Array.from({ length: 5 }, (_, k) => ({ id: BigInt(11 + k), qty: 2n ** 40n, title: `n${11 + k}` })),
    )
    const expected: Row[] = [
      ...Array.from({ length: 11 }, (_, i): Row => [BigInt(i), BigInt(i), `l${i}`, null]),
      ...Array.from({ length: 5 }, (_, k): Row => [BigInt(11 + k), 2n ** 40n, `n${11 + k}`, 'eu']),
    ]
    // Before the next round: the lake (old schema) and the log (both schemas) read in the new one.
    const mixed = await unionRows(path)
    expect(mixed.rows).toEqual(expected)
    expect(mixed.sources).toEqual(new Set(['lake', 'log']))

    const location = await tierAll(path)
    const tiered = await unionRows(path)
    expect(tiered.rows).toEqual(expected)
    expect(tiered.sources).toEqual(new Set(['lake']))

    if (!PYICEBERG) return
    const r = spawnSync(PEER_PYTHON, ['-c', PYICEBERG_SCAN], {
      input: location,
      encoding: 'utf8',
      timeout: 120_000,
    })
    if (r.status !== 0) throw new Error(`pyiceberg failed: ${r.stderr || r.error?.message}`)
    const read = JSON.parse(r.stdout) as { rows: Record<string, unknown>[]; fields: unknown[][] }
    expect(read.fields.filter(f => !String(f[1]).startsWith('__'))).toEqual([
      [1, 'id', 'long'],
      [2, 'qty', 'long'],
      [3, 'title', 'string'],
      [5, 'region', 'string'],
    ])
    const pyRows = read.rows.map(
      x => [BigInt(x.id as number), BigInt(x.qty as number), x.title, x.region] as Row,
    )
    expect(byId(pyRows)).toEqual(expected)
  }, 240_000)
})
