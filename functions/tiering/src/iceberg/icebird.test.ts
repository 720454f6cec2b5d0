import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join, normalize } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { TableMetadata } from '@sluice/lake/iceberg'
import { stringifyJson } from '@sluice/lake/iceberg'
import { LOG_TABLE, PK_TABLE, tableInfoOf } from '@sluice/lake/testing'
import { icebergRead } from 'icebird'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TempLake, tempLake, tierLogRound, tierPkRound } from '../testing/temp-lake.js'
import type { ChangeRecord } from './changelog.js'
import { expireSnapshots } from './maintenance/expire-snapshots.js'

/**
 * icebird 0.3.1 as an independent merge-on-read reader. The lake directory is served over HTTP on
 * 127.0.0.1 (with Range requests); icebird finds the current metadata through
 * `metadata/version-hint.text`. Our metadata records file:// locations, which Node's fetch cannot
 * open, so a fetch shim maps them onto the same HTTP server.
 */

function serve(root: string): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)))
    const size = path.startsWith(root)
      ? await stat(path).then(
          s => (s.isFile() ? s.size : -1),
          () => -1,
        )
      : -1
    if (size < 0) {
      res.writeHead(404).end()
      return
    }
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '')
    if (m === null) {
      res.writeHead(200, { 'content-length': size })
      createReadStream(path).pipe(res)
      return
    }
    const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1])
    const end = m[1] === '' || m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
    res.writeHead(206, {
      'content-length': end - start + 1,
      'content-range': `bytes ${start}-${end}/${size}`,
    })
    createReadStream(path, { start, end }).pipe(res)
  })
  return new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(server)))
}

describe('icebird reads Sluice lake tables', () => {
  let lake: TempLake
  let server: Server
  let base: string
  const realFetch = globalThis.fetch
  let now = 1_800_000_000_000

  beforeAll(async () => {
    lake = await tempLake(() => (now += 1000))
    server = await serve(lake.dir)
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const fileRoot = pathToFileURL(lake.dir).href
    globalThis.fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input)
      return realFetch(url.startsWith(fileRoot) ? base + url.slice(fileRoot.length) : input, init)
    }
  })
  afterAll(async () => {
    globalThis.fetch = realFetch
    await new Promise(resolve => server.close(resolve))
    await lake.close()
  })

  const read = (table: string, metadata?: TableMetadata) =>
    icebergRead({
      tableUrl: `${base}/lake/fluss/${table}`,
      ...(metadata === undefined ? {} : { metadata: JSON.parse(stringifyJson(metadata)) }),
    })

  it('reads a log table through version-hint.text, and time-travels', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const table = lake.table(info)
    const rowOf = (id: number): Row => [BigInt(id), `n${id}`, null, null]
    const s1 = await tierLogRound(table, await table.createIfAbsent(info), 0, 0, 3, rowOf)
    const s2 = await tierLogRound(table, s1.state, 1, 0, 2, rowOf)
    const rows = await read('events')
    expect(rows.map(r => [r.__bucket, r.__offset, r.id, r.name]).sort()).toEqual([
      [0, 0n, 0n, 'n0'],
      [0, 1n, 1n, 'n1'],
      [0, 2n, 2n, 'n2'],
      [1, 0n, 0n, 'n0'],
      [1, 1n, 1n, 'n1'],
    ])
    expect(rows.every(r => r.__timestamp instanceof Date)).toBe(true)
    const old = { ...s2.state.metadata, 'current-snapshot-id': s1.snapshotId }
    expect((await read('events', old)).length).toBe(3)
  })

  it('applies equality deletes across rounds, before and after maintenance', async () => {
    const info = tableInfoOf(PK_TABLE)
    const table = lake.table(info, { manifestMergeMinCount: 2 })
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    const ch = (start: number, list: [ChangeType, Row][]): ChangeRecord[] =>
      list.map(([changeType, row], i) => ({ changeType, row, offset: start + i, timestampMs: start + i }))
    const s0 = await table.createIfAbsent(info)
    const r1 = await tierPkRound(
      table,
      s0,
      0,
      ch(0, [
        [I, [1n, 'a', 1]],
        [I, [2n, 'b', 2]],
        [I, [3n, 'c', 3]],
      ]),
      3,
    )
    const r2 = await tierPkRound(
      table,
      r1.state,
      0,
      ch(3, [
        [UB, [2n, 'b', 2]],
        [UA, [2n, 'b2', 20]],
        [D, [3n, 'c', 3]],
        [I, [4n, 'd', 4]],
      ]),
      7,
    )
    const r3 = await tierPkRound(
      table,
      r2.state,
      0,
      ch(7, [
        [UB, [1n, 'a', 1]],
        [UA, [1n, 'a3', 30]],
        [D, [4n, 'd', 4]],
        [I, [3n, 'c3', 33]],
      ]),
      11,
    )
    const user = (rows: Record<string, unknown>[]) => rows.map(r => [r.id, r.name, r.qty]).sort()
    const expected = [
      [1n, 'a3', 30],
      [2n, 'b2', 20],
      [3n, 'c3', 33],
    ]
    expect(user(await read('orders'))).toEqual(expected)
    expect(
      user(await read('orders', { ...r3.state.metadata, 'current-snapshot-id': r2.snapshotId })),
    ).toEqual([
      [1n, 'a', 1],
      [2n, 'b2', 20],
      [4n, 'd', 4],
    ])

    now += 3_600_000
    await expireSnapshots(table, { olderThanMs: now, retainLast: 1 })
    expect(user(await read('orders'))).toEqual(expected)
  })
})
