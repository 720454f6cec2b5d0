import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { Connection, type Table, type UpsertWriter } from '@sluice/client'
import { initArrowCodecs } from '@sluice/core/arrow'
import { TABLET_SERVER_NODE_FLAGS } from '@sluice/core/config'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { keyEncoderFor } from '@sluice/core/row'
import { ClientConnection } from '@sluice/core/rpc'
import { DataTypes, notNull } from '@sluice/core/types'
import { keyRouter } from '@sluice/tablet/kv'
import type { Benchmark, Sample } from '../harness.js'
import { createBenchTable } from './bench-cluster.js'
import type { KeyCheckServerReply } from './key-check-server.js'
import { CLIENT_NODE_ARGS, LOOKUP_CONFIG } from './pk-lookup.js'
import { LoadClient, type LoadResult } from './pk-lookup-load.js'

const BUCKETS = 4
const UPSERT_ROWS = 100_000
const LOOKUP_KEYS = 50_000
const LOOKUPS = 300_000
/**
 * Untimed work per table before the runs, so that all run warm code over warm data (the
 * first few hundred thousand operations of a fresh server are several times slower).
 */
const WARM_UP = 150_000
const CLIENTS = 50
const SERVER_SCRIPT = fileURLToPath(new URL('./key-check-server.js', import.meta.url))
const READY_TIMEOUT_MS = 60_000

type Kind = 'pk-upsert' | 'pk-lookup'

/**
 * The tables whose keys the server checks (as every table's) and those whose keys it does not (by
 * name prefix). Each case has two tables, created in the order checked, unchecked, unchecked,
 * checked, and a run splits its work between its two: whatever being created earlier or later
 * does to a table (a few percent, as much as the check costs) weighs the same on both cases.
 */
const CHECKED_TABLES = ['keys_checked_1', 'keys_checked_2'] as const
const UNCHECKED_PREFIX = 'keys_unchecked_'
const UNCHECKED_TABLES = [`${UNCHECKED_PREFIX}1`, `${UNCHECKED_PREFIX}2`] as const

/** One side: a table of the shared server (its keys checked or not) and its clients. */
interface Side {
  readonly table: Table
  readonly writer: UpsertWriter
  /** The Lookuper's load client (pk-lookup only). */
  readonly lookups: LoadClient | undefined
  /** The next new key an upsert run writes. */
  nextKey: number
}

interface Ctx {
  readonly server: Server
  readonly connection: Connection
  readonly on: readonly Side[]
  readonly off: readonly Side[]
}

/** A row whose stored value is about 100 bytes (as in pk-upsert). */
function row(i: number): [bigint, string] {
  return [BigInt(i), `r0-${String(i).padStart(12, '0')}-`.padEnd(92, 'x')]
}

interface Server {
  readonly child: ChildProcess
  readonly bootstrapServers: string
  readonly tablet: { readonly host: string; readonly port: number }
}

function startServer(): Promise<Server> {
  const child = fork(SERVER_SCRIPT, [UNCHECKED_PREFIX], {
    execArgv: [...process.execArgv, ...TABLET_SERVER_NODE_FLAGS],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error('the key-check server did not start in time')),
      READY_TIMEOUT_MS,
    )
    const fail = (e: Error) => {
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(e)
    }
    child.once('exit', code => fail(new Error(`the key-check server exited (${code}) while starting`)))
    child.once('message', (reply: KeyCheckServerReply) => {
      clearTimeout(timer)
      child.removeAllListeners('exit')
      if (reply.type === 'ready') resolve({ child, ...reply })
      else fail(new Error(`the key-check server failed to start: ${JSON.stringify(reply)}`))
    })
  })
}

/** The CPU time the server's process has used so far, in microseconds. */
function serverCpuMicros(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the key-check server exited (${code})`))
    server.child.once('exit', onExit)
    server.child.once('message', (reply: KeyCheckServerReply) => {
      server.child.off('exit', onExit)
      if (reply.type === 'cpu') resolve(reply.micros)
      else reject(new Error(`the key-check server answered ${reply.type} to cpu`))
    })
    server.child.send({ type: 'cpu' })
  })
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise(resolve => child.once('exit', resolve))
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  child.send({ type: 'close' })
  await exited
  clearTimeout(timer)
}

/**
 * Whether the server serves a key of `table` sent to the wrong bucket in its own bucket: a LOOKUP
 * of a stored key of another bucket, sent to bucket 0. Only a table whose keys are checked finds it.
 */
async function servesMisroutedKeys(server: Server, table: Table, stored: number): Promise<boolean> {
  const info = table.getTableInfo()
  const router = keyRouter(info)
  const { key } = keyEncoderFor(info)
  let id = 0
  while (id < stored && router.bucketOfKey(key.encodeKey(row(id))) === 0) id++
  const c = await ClientConnection.connect({ ...server.tablet, expectedRole: 'tablet' })
  try {
    const answer = await c.request('LOOKUP', {
      tableId: info.tableId,
      bucketsReq: [{ bucketId: 0, keys: [Buffer.from(key.encodeKey(row(id)))] }],
    })
    return (answer.bucketsResp[0]?.values[0]?.values ?? null) !== null
  } finally {
    c.close()
  }
}

async function startSide(
  kind: Kind,
  server: Server,
  connection: Connection,
  check: boolean,
  tableName: string,
): Promise<Side> {
  const schema = Schema.newBuilder()
    .column('id', notNull(DataTypes.BIGINT()))
    .column('payload', DataTypes.STRING())
    .primaryKey('id')
    .build()
  const descriptor = TableDescriptor.builder().schema(schema).distributedBy(BUCKETS).build()
  const path = await createBenchTable(connection, descriptor, tableName)
  const table = await connection.getTable(path)
  const writer = table.newUpsert().createWriter()
  let lookups: LoadClient | undefined
  try {
    const preload = kind === 'pk-lookup' ? LOOKUP_KEYS : 1000
    for (let i = 0; i < preload; i++) {
      const wait = writer.upsert(row(i))
      if (wait) await wait
    }
    await writer.flush()
    if ((await servesMisroutedKeys(server, table, preload)) !== check)
      throw new Error(`the keys of ${path.tableName} are ${check ? 'not ' : ''}checked`)
    if (kind === 'pk-lookup') {
      const { databaseName, tableName } = path
      lookups = await LoadClient.start({
        config: { 'bootstrap.servers': server.bootstrapServers, ...LOOKUP_CONFIG },
        database: databaseName,
        table: tableName,
        nodeArgs: CLIENT_NODE_ARGS,
      })
    }
    const side = { table, writer, lookups, nextKey: preload }
    if (lookups !== undefined) await lookups.run(CLIENTS, WARM_UP, LOOKUP_KEYS)
    else await upsertNew(side, WARM_UP)
    return side
  } catch (e) {
    await lookups?.stop()
    await writer.close().catch(() => undefined)
    throw e
  }
}

async function stopSide(side: Side): Promise<void> {
  await side.lookups?.stop()
  await side.writer.close().catch(() => undefined)
}

/** `rows` new keys through the side's UpsertWriter, until flushed. */
async function upsertNew(side: Pick<Side, 'writer' | 'nextKey'>, rows: number): Promise<void> {
  for (let i = 0; i < rows; i++) {
    const wait = side.writer.upsert(row(side.nextKey++))
    if (wait) await wait
  }
  await side.writer.flush()
}

/** UPSERT_ROWS new keys through the sides' UpsertWriters (half each), until flushed: rows per second of the server's CPU. */
async function upserts(server: Server, sides: readonly Side[]): Promise<Sample> {
  const cpu0 = await serverCpuMicros(server)
  const t0 = performance.now()
  for (const side of sides) await upsertNew(side, UPSERT_ROWS / sides.length)
  const seconds = (performance.now() - t0) / 1000
  const cpu = (await serverCpuMicros(server)) - cpu0
  return {
    value: UPSERT_ROWS / (cpu / 1e6),
    extra: { 'server CPU µs/row': cpu / UPSERT_ROWS, 'rows/s (wall)': UPSERT_ROWS / seconds },
  }
}

/**
 * LOOKUPS random keys at CLIENTS concurrent lookups through the sides' Lookupers (half each):
 * lookups per second of the server's CPU.
 */
async function lookups(server: Server, sides: readonly Side[]): Promise<Sample> {
  const cpu0 = await serverCpuMicros(server)
  const results: LoadResult[] = []
  for (const side of sides) {
    if (side.lookups === undefined) throw new Error('no load client')
    results.push(await side.lookups.run(CLIENTS, LOOKUPS / sides.length, LOOKUP_KEYS))
  }
  const cpu = (await serverCpuMicros(server)) - cpu0
  const missing = results.reduce((n, r) => n + r.missing, 0)
  if (missing > 0) throw new Error(`${missing} of ${LOOKUPS} preloaded keys were not found`)
  const mean = (f: (r: LoadResult) => number) => results.reduce((n, r) => n + f(r), 0) / results.length
  return {
    value: LOOKUPS / (cpu / 1e6),
    extra: {
      'server CPU µs/lookup': cpu / LOOKUPS,
      'lookups/s (wall)': LOOKUPS / results.reduce((n, r) => n + r.seconds, 0),
      'p50 ms (mean of the tables)': mean(r => r.p50Ms),
      'p99 ms (mean of the tables)': mean(r => r.p99Ms),
    },
  }
}

function keyCheckBenchmark(kind: Kind): Benchmark<Ctx> {
  const run = kind === 'pk-upsert' ? upserts : lookups
  const setting = `${BUCKETS} buckets, BIGINT key = bucket key; one tablet server and a coordinator in a process of their own, holding the tables, which is given a key router that checks no key of the unchecked ones; two tables per case, created checked, unchecked, unchecked, checked, each run split between its case's two; runs alternate between the cases`
  return {
    name: `key-check-${kind}`,
    description:
      kind === 'pk-upsert'
        ? `Cost of the leader's key check on PUT_KV: upserts/s of ${UPSERT_ROWS.toLocaleString('en-US')} new keys per run (~100-byte STRING values, SDK UpsertWriter with its default acks and batching, until flushed) into a table whose keys the tablet server checks (each key's bucket) vs a table whose keys it does not check (${setting}). Measured as the server process's CPU time per row.`
        : `Cost of the leader's key check on LOOKUP: point lookups/s of random keys among ${LOOKUP_KEYS.toLocaleString('en-US')} (~100-byte values) at ${CLIENTS} concurrent requests through the SDK Lookuper in a load-client process (client.lookup.batch-timeout 0), ${LOOKUPS.toLocaleString('en-US')} per run, against a table whose keys the tablet server checks vs one whose keys it does not check (${setting}). Measured as the server process's CPU time per lookup.`,
    unit: kind === 'pk-upsert' ? 'rows per server CPU-s' : 'lookups per server CPU-s',
    better: 'higher',
    target: { ratio: 0.97, note: 'the key check costs at most 3%' },
    runs: kind === 'pk-upsert' ? 21 : 31,
    async setup() {
      await initArrowCodecs()
      const server = await startServer()
      let connection: Connection | undefined
      const sides: { readonly check: boolean; readonly side: Side }[] = []
      try {
        connection = await Connection.create({
          'bootstrap.servers': server.bootstrapServers,
          ...LOOKUP_CONFIG,
        })
        const order = [
          [true, CHECKED_TABLES[0]],
          [false, UNCHECKED_TABLES[0]],
          [false, UNCHECKED_TABLES[1]],
          [true, CHECKED_TABLES[1]],
        ] as const
        for (const [check, name] of order)
          sides.push({ check, side: await startSide(kind, server, connection, check, name) })
        const of = (check: boolean) => sides.filter(s => s.check === check).map(s => s.side)
        return { server, connection, on: of(true), off: of(false) }
      } catch (e) {
        for (const { side } of sides) await stopSide(side)
        await connection?.close().catch(() => undefined)
        await stopServer(server.child)
        throw e
      }
    },
    async teardown(ctx) {
      for (const side of [...ctx.on, ...ctx.off]) await stopSide(side)
      await ctx.connection.close().catch(() => undefined)
      await stopServer(ctx.server.child)
    },
    subject: { name: 'keys checked', run: ctx => run(ctx.server, ctx.on) },
    baseline: { name: 'keys not checked', run: ctx => run(ctx.server, ctx.off) },
  }
}

export const keyCheckPkUpsert = keyCheckBenchmark('pk-upsert')
export const keyCheckPkLookup = keyCheckBenchmark('pk-lookup')
