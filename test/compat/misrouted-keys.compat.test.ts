import { expect } from 'vitest'
import type { Canonical, TableSpec } from './canonical.js'
import type { KvOp } from './drivers/driver.js'
import { itWhenServed } from './features.js'
import { compatSuite } from './harness.js'

/**
 * pyfluss 1.0.0 hashes the tail bytes of an encoded key as unsigned, where Fluss and the other
 * clients read them as signed: INT ids >= 128 may be sent to another bucket than the one they
 * belong to. The leaders serve such keys in their own bucket, so pyfluss alone keeps working and
 * mixing clients stays consistent: pyfluss upserts 10,000 ids over 4 buckets, then the SDK, the
 * Java client and the gateway look every id up and upsert some again, and every reader (pyfluss
 * included) finds one row per key with its latest value.
 */
const { env, apis, db } = await compatSuite('misrouted', ['PUT_KV', 'LOOKUP'])
const kvIt = itWhenServed(apis, ['PUT_KV', 'LOOKUP'])

const IDS = 10_000
const TABLE = 'pyfluss_keys'
const SPEC: TableSpec = {
  columns: [
    { name: 'id', type: 'INT', nullable: false },
    { name: 'name', type: 'STRING' },
  ],
  primaryKey: ['id'],
  buckets: 4,
}
const ids = Array.from({ length: IDS }, (_, id) => id)
const keys = ids.map(id => [String(id)])
const upserts = (from: number, to: number, prefix: string): KvOp[] =>
  ids.slice(from, to).map(id => ({ op: 'upsert' as const, row: [String(id), `${prefix}-${id}`] }))
/** The rows the table should hold: name by id. */
const state = new Map<number, string>()

/** The parts of the gateway's answers (lookup, snapshot, errors) the test reads. */
interface GatewayAnswer {
  readonly rows: ({ id: number; name: string | null } | null)[]
}

async function gateway(path: string, body?: unknown): Promise<{ status: number; json: GatewayAnswer }> {
  const url = `${env.cluster.gatewayUrl}/v1/databases/${db}/tables/${TABLE}${path}`
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...env.gateway.headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: (await res.json()) as GatewayAnswer }
}

async function gatewayLookup(): Promise<(Canonical[] | null)[]> {
  const rows: (Canonical[] | null)[] = []
  for (let i = 0; i < IDS; i += 128) {
    const { status, json } = await gateway('/lookup', { keys: ids.slice(i, i + 128).map(id => ({ id })) })
    expect(status, JSON.stringify(json)).toBe(200)
    for (const r of json.rows) rows.push(r === null ? null : [String(r.id), r.name])
  }
  return rows
}

const expected = (of: readonly number[] = ids) => of.map(id => [String(id), state.get(id) ?? null])
/**
 * pyfluss answers one lookup at a time (about 10 a second here), so it looks up a sample: ids
 * below and above 128 from every range the other clients update; its changelog read covers all.
 */
const SAMPLE = [0, 500, 1000, 1500, 9980].flatMap(from => ids.slice(from, from + 20))
const sampleKeys = SAMPLE.map(id => [String(id)])

/** The latest row of every id in a changelog, and the buckets each id appeared in. */
function latestRows(log: readonly { bucket: number; change: string; row: Canonical[] }[]) {
  const rows = new Map<string, Canonical[] | null>()
  const buckets = new Map<string, Set<number>>()
  for (const r of log) {
    const id = r.row[0] as string
    rows.set(id, r.change === '-D' || r.change === '-U' ? null : r.row)
    buckets.set(id, (buckets.get(id) ?? new Set()).add(r.bucket))
  }
  return { rows, buckets }
}

kvIt('pyfluss creates a 4-bucket table and upserts 10,000 ids; it reads back what it wrote', async () => {
  await env.cluster.startGateway('127.0.0.1:0', env.gateway.clientConfig)
  await env.python.createTable(db, TABLE, SPEC)
  await env.python.upsert(db, TABLE, [...upserts(0, IDS, 'py'), { op: 'flush' }])
  for (const id of ids) state.set(id, `py-${id}`)
  expect(await env.python.lookup(db, TABLE, sampleKeys)).toEqual(expected(SAMPLE))
  const { rows } = latestRows(await env.python.changelog(db, TABLE, IDS))
  expect(ids.map(id => rows.get(String(id)) ?? null)).toEqual(expected())
})

kvIt('the SDK, the Java client and the gateway find every id', async () => {
  expect(await env.sdk.lookup(db, TABLE, keys)).toEqual(expected())
  expect(await env.java.lookup(db, TABLE, keys)).toEqual(expected())
  expect(await gatewayLookup()).toEqual(expected())
})

kvIt('upserts of the same ids through every client leave one row per key everywhere', async () => {
  await env.sdk.upsert(db, TABLE, [...upserts(0, 500, 'sdk'), { op: 'flush' }])
  await env.java.upsert(db, TABLE, [...upserts(500, 1000, 'java'), { op: 'flush' }])
  const rows = ids.slice(1000, 1500).map(id => ({ id, name: `http-${id}` }))
  expect((await gateway('/upsert', { rows })).status).toBe(200)
  await env.python.upsert(db, TABLE, [...upserts(1500, 2000, 'py2'), { op: 'flush' }])
  for (const [from, prefix] of [
    [0, 'sdk'],
    [500, 'java'],
    [1000, 'http'],
    [1500, 'py2'],
  ] as const)
    for (let id = from; id < from + 500; id++) state.set(id, `${prefix}-${id}`)

  expect(await env.python.lookup(db, TABLE, sampleKeys)).toEqual(expected(SAMPLE))
  expect(await env.sdk.lookup(db, TABLE, keys)).toEqual(expected())
  expect(await env.java.lookup(db, TABLE, keys)).toEqual(expected())
  expect(await gatewayLookup()).toEqual(expected())
  // The changelog over all buckets, as pyfluss and the SDK read it: one +I per id, -U/+U per
  // update, the latest row of each id as the lookups found it, each id in one bucket only.
  for (const reader of [env.python, env.sdk]) {
    const log = await reader.changelog(db, TABLE, IDS + 2 * 2000)
    expect(
      log.filter(r => r.change === '+I'),
      reader.name,
    ).toHaveLength(IDS)
    expect(
      log.filter(r => r.change === '+U'),
      reader.name,
    ).toHaveLength(2000)
    const { rows, buckets } = latestRows(log)
    expect(ids.map(id => rows.get(String(id)) ?? null)).toEqual(expected())
    expect(
      [...buckets].filter(([, b]) => b.size > 1),
      reader.name,
    ).toEqual([])
  }
  // And the gateway's bounded snapshot holds each key once.
  const snapshot = await gateway(`/snapshot?limit=${IDS + 10}`)
  const snapshotIds = snapshot.json.rows.map(r => r?.id)
  expect(snapshotIds).toHaveLength(IDS)
  expect(new Set(snapshotIds).size).toBe(IDS)
})
