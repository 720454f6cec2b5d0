import type { Connection, Table, TableChanges } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { Schema, TableDescriptor, type TablePath } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import type { Benchmark } from '../harness.js'
import { type BenchCluster, createBenchTable, startBenchCluster } from './bench-cluster.js'
import { appendAll } from './sdk-append.js'

const APPEND_ROWS = 200_000
const KEYS = 20_000
const LOOKUPS = 100_000
const IN_FLIGHT = 50
const BUCKETS = 4
const CLIENT_CONFIG = {
  'client.writer.acks': '1',
  'client.writer.enable-idempotence': 'false',
  'client.lookup.batch-timeout': '0ms',
}
const PAYLOAD = 'p'.repeat(900)

/** Schema 1 of the evolved tables: k, v STRING, a INT, legacy STRING. */
function firstSchema(primaryKey: boolean): Schema {
  const b = Schema.newBuilder()
    .column('k', notNull(DataTypes.BIGINT()))
    .column('v', DataTypes.STRING())
    .column('a', DataTypes.INT())
    .column('legacy', DataTypes.STRING())
  return (primaryKey ? b.primaryKey('k') : b).build()
}

/** The four ALTERs that take a table from schema 1 to schema 5 (k, val, a BIGINT, c1, c2). */
const ALTERS: readonly TableChanges[] = [
  { addColumns: [{ name: 'c1', type: DataTypes.STRING() }] },
  { renameColumns: [{ name: 'v', newName: 'val' }] },
  { modifyColumns: [{ name: 'a', type: DataTypes.BIGINT() }] },
  { addColumns: [{ name: 'c2', type: DataTypes.DOUBLE() }], dropColumns: ['legacy'] },
]

/** A row of key `i` as the table's schema version `version` (1..5) has it. */
function rowOf(version: number, i: number, payload: string): Row {
  const k = BigInt(i)
  if (version === 1) return [k, payload, i, 'old']
  if (version <= 3) return [k, payload, i, 'old', 'c1']
  if (version === 4) return [k, payload, k, 'old', 'c1']
  return [k, payload, k, 'c1', 1.5]
}

/** A table created with schema 5's columns directly. */
function freshSchema(primaryKey: boolean): Schema {
  const b = Schema.newBuilder()
    .column('k', notNull(DataTypes.BIGINT()))
    .column('val', DataTypes.STRING())
    .column('a', DataTypes.BIGINT())
    .column('c1', DataTypes.STRING())
    .column('c2', DataTypes.DOUBLE())
  return (primaryKey ? b.primaryKey('k') : b).build()
}

async function upsertKeys(table: Table, version: number, from: number, to: number): Promise<void> {
  const writer = table.newUpsert().createWriter()
  for (let i = from; i < to; i++) {
    const wait = writer.upsert(rowOf(version, i, `value-${i}`))
    if (wait) await wait
  }
  await writer.close()
}

/**
 * A table that went through schemas 1..5, data written under each: log batches of every version, and
 * KEYS / 5 keys stored under each version (their KV values are read through the column mapping).
 */
async function evolvedTable(connection: Connection, primaryKey: boolean): Promise<Table> {
  const descriptor = TableDescriptor.builder().schema(firstSchema(primaryKey)).distributedBy(BUCKETS).build()
  const path: TablePath = await createBenchTable(
    connection,
    descriptor,
    primaryKey ? 'evolved_kv' : 'evolved_log',
  )
  const share = KEYS / 5
  for (let version = 1; version <= 5; version++) {
    if (version > 1) await connection.getAdmin().alterTable(path, ALTERS[version - 2] as TableChanges)
    const table = await connection.getTable(path)
    const schemaId = table.getTableInfo().schemaId
    if (schemaId !== version) throw new Error(`expected schema ${version}, the table has ${schemaId}`)
    if (primaryKey) await upsertKeys(table, version, (version - 1) * share, version * share)
    else
      await appendAll(
        table,
        Array.from({ length: 1000 }, (_, i) => rowOf(version, i, PAYLOAD)),
      )
  }
  return connection.getTable(path)
}

async function freshTable(connection: Connection, primaryKey: boolean): Promise<Table> {
  const descriptor = TableDescriptor.builder().schema(freshSchema(primaryKey)).distributedBy(BUCKETS).build()
  const table = await connection.getTable(
    await createBenchTable(connection, descriptor, primaryKey ? 'fresh_kv' : 'fresh_log'),
  )
  if (primaryKey) await upsertKeys(table, 5, 0, KEYS)
  return table
}

/** LOOKUPS point lookups of random keys, IN_FLIGHT at a time; returns lookups/s. */
async function lookups(table: Table): Promise<number> {
  const lookuper = table.newLookup().createLookuper()
  const t0 = performance.now()
  let next = 0
  let found = 0
  const worker = async () => {
    while (next < LOOKUPS) {
      next++
      const row = (await lookuper.lookup([BigInt(Math.floor(Math.random() * KEYS))])).singletonRow()
      if (row !== null && row.length === 5) found++
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  if (found !== LOOKUPS) throw new Error(`${LOOKUPS - found} lookups did not return a 5-column row`)
  return LOOKUPS / ((performance.now() - t0) / 1000)
}

interface Ctx {
  readonly bench: BenchCluster
  readonly rows: Row[]
  readonly evolved: Table
  readonly fresh: Table
}

function evolvedBenchmark(kind: 'append' | 'lookup'): Benchmark<Ctx> {
  const primaryKey = kind === 'lookup'
  const run = async (table: Table, rows: Row[]) => ({
    value: kind === 'append' ? rows.length / (await appendAll(table, rows)) : await lookups(table),
  })
  return {
    name: `evolved-schema-${kind}`,
    description:
      kind === 'append'
        ? 'SDK AppendWriter rows/s (200,000 rows of ~1 KiB per run, 4 buckets, acks=1) into a log table that went through 5 schema versions (ADD, RENAME, INT→BIGINT, DROP+ADD; batches of every version in its log) vs a table created with the same final columns, same 1-tablet-server LocalCluster, alternating.'
        : 'Point lookups/s (100,000 per run, 50 in flight, 20,000 keys, 4 buckets) on a primary-key table that went through 5 schema versions, a fifth of its keys stored under each (old values mapped by column id on read) vs a table created with the same final columns, same 1-tablet-server LocalCluster, alternating.',
    unit: kind === 'append' ? 'rows/s' : 'lookups/s',
    better: 'higher',
    target: { ratio: 0.95 },
    runs: 15,
    async setup() {
      await initArrowCodecs()
      const bench = await startBenchCluster(`evolved-${kind}`, CLIENT_CONFIG)
      try {
        const rows = Array.from({ length: APPEND_ROWS }, (_, i) => rowOf(5, i, PAYLOAD))
        const evolved = await evolvedTable(bench.connection, primaryKey)
        const fresh = await freshTable(bench.connection, primaryKey)
        return { bench, rows, evolved, fresh }
      } catch (e) {
        await bench.stop()
        throw e
      }
    },
    async teardown(ctx) {
      await ctx.bench.stop()
    },
    subject: { name: 'table at schema 5 (4 ALTERs)', run: ctx => run(ctx.evolved, ctx.rows) },
    baseline: { name: 'fresh table, same columns', run: ctx => run(ctx.fresh, ctx.rows) },
  }
}

export const evolvedSchemaAppend = evolvedBenchmark('append')
export const evolvedSchemaLookup = evolvedBenchmark('lookup')
