import { bucketForKey } from '@sluice/core/bucketing'
import { ERRORS } from '@sluice/core/errors'
import { KvRecordBatchBuilder } from '@sluice/core/kvbatch'
import type { TableInfo } from '@sluice/core/metadata'
import {
  CompactedKeyEncoder,
  CompactedRowEncoder,
  decodeCompactedRow,
  decodeValue,
  keyEncoderFor,
  type Row,
} from '@sluice/core/row'
import type { ClientConnection } from '@sluice/core/rpc'
import { afterEach, describe, expect, it } from 'vitest'
import { notifyRequest, PK_SCHEMA, TABLE_ID, TestCluster } from '../testing/cluster.js'
import type { TabletServer } from './tablet-server.js'

/**
 * Keys sent to a bucket they do not belong to, through real tablet servers: the leader that gets
 * them serves each key in its own bucket (its own handler for a bucket it leads, the other
 * server's over the internal listener otherwise), or fails the bucket with a retriable error and
 * writes nothing when that bucket's leader cannot be reached.
 */

const BUCKETS = 4
/** Server 1 leads buckets 0 and 2, server 2 leads 1 and 3; each follows the other's. */
const LEADER_OF = [1, 2, 1, 2]

let cluster: TestCluster
afterEach(async () => {
  await cluster?.close()
})

/** What clients compute for PK_SCHEMA rows of a table: KV keys, prefixes, buckets and batches. */
function clientOf(info: TableInfo) {
  const keys = keyEncoderFor(info)
  const prefixes = keyEncoderFor(info, info.rowType, info.bucketKeys)
  const values = new CompactedRowEncoder(PK_SCHEMA.rowType)
  const bucketOf = (id: number) => keys.bucketing(keys.bucketKey.encodeKeyView([id, 'x', null]), BUCKETS)
  return {
    key: (id: number, name: string) => Buffer.from(keys.key.encodeKey([id, name, null])),
    prefix: (id: number) => Buffer.from(prefixes.key.encodeKey([id, null, null])),
    bucketOf,
    /** The first `count` ids (from 0) whose rows belong to `bucket`. */
    idsOf(bucket: number, count: number): number[] {
      const ids: number[] = []
      for (let id = 0; ids.length < count; id++) if (bucketOf(id) === bucket) ids.push(id)
      return ids
    },
    batch(rows: readonly Row[]): Buffer {
      const builder = new KvRecordBatchBuilder({ schemaId: info.schemaId, writeLimitBytes: 1 << 20 })
      for (const row of rows) builder.append(keys.key.encodeKey(row), values.encode(row))
      return Buffer.from(builder.build())
    },
  }
}

const rowOf = (value: Uint8Array | null | undefined): Row | null =>
  value === null || value === undefined
    ? null
    : decodeCompactedRow(decodeValue(Buffer.from(value)).row, PK_SCHEMA.rowType)

async function setup(properties: Record<string, string>) {
  cluster = new TestCluster()
  const info = await cluster.createPkTable(BUCKETS, properties)
  const servers = [await cluster.startServer(1), await cluster.startServer(2)]
  const connections = await Promise.all(servers.map(s => cluster.connect(s)))
  // The coordinator's view: every server's address, then the buckets' leaders.
  const tabletServers = servers.map(s => ({
    nodeId: s.serverId,
    host: s.endpoints[0].host,
    port: s.endpoints[0].port,
    listeners: `FLUSS://${s.endpoints[0].host}:${s.endpoints[0].port}`,
  }))
  const assignment = LEADER_OF.map((leader, bucket) => ({ bucket, leader, replicas: [leader, 3 - leader] }))
  for (const c of connections) {
    await c.request('UPDATE_METADATA', { coordinatorEpoch: 1, tabletServers })
    await c.request('NOTIFY_LEADER_AND_ISR', notifyRequest(1, assignment))
  }
  const client = clientOf(info)
  /** The connection to the leader of `bucket`. */
  const leaderOf = (bucket: number) => connections[LEADER_OF[bucket] - 1] as ClientConnection
  const put = async (c: ClientConnection, bucket: number, rows: readonly Row[]) =>
    (
      await c.request('PUT_KV', {
        acks: -1,
        tableId: TABLE_ID,
        timeoutMs: 5000,
        bucketsReq: [{ bucketId: bucket, records: client.batch(rows) }],
      })
    ).bucketsResp[0]
  const lookup = async (c: ClientConnection, bucket: number, keys: readonly Buffer[]) =>
    (await c.request('LOOKUP', { tableId: TABLE_ID, bucketsReq: [{ bucketId: bucket, keys: [...keys] }] }))
      .bucketsResp[0]
  const prefixLookup = async (c: ClientConnection, bucket: number, prefixes: readonly Buffer[]) =>
    (
      await c.request('PREFIX_LOOKUP', {
        tableId: TABLE_ID,
        bucketsReq: [{ bucketId: bucket, keys: [...prefixes] }],
      })
    ).bucketsResp[0]
  /** What the KV store of `bucket`'s leader holds for `key` (no routing: the store itself). */
  const stored = async (bucket: number, key: Buffer) => {
    const replica = servers[LEADER_OF[bucket] - 1]?.replicaManager.getReplica({ tableId: TABLE_ID, bucket })
    const kv = replica?.kvTablet
    if (kv === undefined || kv === null) throw new Error(`bucket ${bucket} has no KV tablet on its leader`)
    return rowOf((await kv.lookup([key]))[0])
  }
  return { info, servers, connections, client, leaderOf, put, lookup, prefixLookup, stored }
}

const TABLES = {
  'a table without a lake': {},
  'an Iceberg lake table (Iceberg bucketing of the bucket key)': {
    'table.datalake.format': 'iceberg',
    'table.kv.format-version': '2',
  },
}

for (const [name, properties] of Object.entries(TABLES)) {
  describe(`keys in the wrong bucket, ${name}`, () => {
    it('PUT_KV: a mixed batch puts each row in its own bucket, on this leader or the other', async () => {
      const { client, leaderOf, put, lookup, stored } = await setup(properties)
      // The lake table buckets its keys otherwise than Fluss's hash of the compacted bucket key.
      const flussHash = CompactedKeyEncoder.of(PK_SCHEMA.rowType, ['id'])
      const differ = Array.from({ length: 100 }, (_, id) => id).filter(
        id => bucketForKey(flussHash.encodeKey([id]), BUCKETS) !== client.bucketOf(id),
      )
      expect(differ.length > 0).toBe(name.includes('Iceberg'))
      // Sent to bucket 0 on server 1: one row of its own, one of bucket 2 (led here too), two of
      // bucket 1 and one of bucket 3 (led by server 2).
      const [own] = client.idsOf(0, 1)
      const elsewhere = [...client.idsOf(2, 1), ...client.idsOf(1, 2), ...client.idsOf(3, 1)]
      const rows: Row[] = [own, ...elsewhere].map(id => [id, `n${id}`, BigInt(id)])
      expect(await put(leaderOf(0), 0, rows)).toMatchObject({ errorCode: null })
      for (const row of rows) {
        const id = row[0] as number
        const bucket = client.bucketOf(id)
        // In its own bucket's store, and only there.
        expect(await stored(bucket, client.key(id, `n${id}`)), `id ${id} in bucket ${bucket}`).toEqual(row)
        if (bucket !== 0) expect(await stored(0, client.key(id, `n${id}`)), `id ${id} in bucket 0`).toBeNull()
        // A lookup sent where the key belongs finds it.
        const found = await lookup(leaderOf(bucket), bucket, [client.key(id, `n${id}`)])
        expect(rowOf(found?.values[0]?.values)).toEqual(row)
      }
    })

    it('LOOKUP: a mixed batch answers every key from its own bucket, in key order', async () => {
      const { client, leaderOf, put, lookup } = await setup(properties)
      const ids = [0, 1, 2, 3].flatMap(b => client.idsOf(b, 2))
      for (const id of ids)
        await put(leaderOf(client.bucketOf(id)), client.bucketOf(id), [[id, 'a', BigInt(id)]])
      const keys = [...ids.map(id => client.key(id, 'a')), client.key(ids[0], 'absent')]
      for (const sentTo of [0, 3]) {
        const answer = await lookup(leaderOf(sentTo), sentTo, keys)
        expect(answer?.errorCode ?? 0).toBe(0)
        expect(answer?.values.map(v => rowOf(v.values))).toEqual([
          ...ids.map(id => [id, 'a', BigInt(id)]),
          null,
        ])
      }
    })

    it('PREFIX_LOOKUP: each prefix is served from its canonical bucket', async () => {
      const { client, leaderOf, put, prefixLookup } = await setup(properties)
      const ids = [0, 1, 2, 3].flatMap(b => client.idsOf(b, 1))
      for (const id of ids) {
        const bucket = client.bucketOf(id)
        await put(leaderOf(bucket), bucket, [
          [id, 'a', 1n],
          [id, 'b', 2n],
        ])
      }
      const absent = client.idsOf(1, 3)[2] as number
      const prefixes = [...ids, absent].map(id => client.prefix(id))
      for (const sentTo of [0, 1]) {
        const answer = await prefixLookup(leaderOf(sentTo), sentTo, prefixes)
        expect(answer?.errorCode ?? 0).toBe(0)
        const lists = answer?.valueLists.map(l => l.values.map(v => rowOf(v)))
        expect(lists).toEqual([
          ...ids.map(id => [
            [id, 'a', 1n],
            [id, 'b', 2n],
          ]),
          [],
        ])
      }
    })
  })
}

describe('keys in the wrong bucket when their bucket leader cannot be reached', () => {
  it('fail the bucket with a retriable error and write nothing', async () => {
    const { client, servers, leaderOf, put, lookup, prefixLookup, stored } = await setup({})
    const [own, ownToo] = client.idsOf(0, 2)
    const [other] = client.idsOf(1, 1)
    const [otherHere] = client.idsOf(2, 1)
    // Written before server 2 (the leader of buckets 1 and 3) stops.
    await put(leaderOf(0), 0, [[ownToo, 'a', 1n]])
    await put(leaderOf(1), 1, [[other, 'a', 1n]])
    const c = leaderOf(0)
    await cluster.stopServer(servers[1] as TabletServer)
    const replica = (servers[0] as TabletServer).replicaManager.getReplica({ tableId: TABLE_ID, bucket: 0 })
    const logEnd = replica?.logTablet.logEndOffset
    // acks 1: the leader's own write needs no follower, so only the forwarding can fail it.
    const refused = (
      await c.request('PUT_KV', {
        acks: 1,
        tableId: TABLE_ID,
        timeoutMs: 2000,
        bucketsReq: [
          {
            bucketId: 0,
            records: client.batch([
              [own, 'a', 2n],
              [otherHere, 'a', 2n],
              [other, 'a', 2n],
            ]),
          },
        ],
      })
    ).bucketsResp[0]
    expectRetriable(refused?.errorCode)
    expect(await stored(0, client.key(own, 'a'))).toBeNull()
    expect(replica?.logTablet.logEndOffset).toBe(logEnd)

    const read = await lookup(c, 0, [client.key(ownToo, 'a'), client.key(other, 'a')])
    expectRetriable(read?.errorCode)
    const prefixed = await prefixLookup(c, 0, [client.prefix(ownToo), client.prefix(other)])
    expectRetriable(prefixed?.errorCode)
    // Keys of buckets this server leads are still served, whichever of them they are sent to.
    const served = await lookup(c, 2, [client.key(ownToo, 'a')])
    expect(rowOf(served?.values[0]?.values)).toEqual([ownToo, 'a', 1n])
  })
})

function expectRetriable(code: number | null | undefined): void {
  const spec = Object.values(ERRORS).find(e => e.code === code)
  expect(spec?.name, `error code ${code}`).toMatch(/NETWORK_EXCEPTION|LEADER_NOT_AVAILABLE_EXCEPTION/)
  expect(spec?.retriable).toBe(true)
}
