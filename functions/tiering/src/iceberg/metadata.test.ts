import type { Row } from '@sluice/core/row'
import type { Snapshot, TableMetadata } from '@sluice/lake/iceberg'
import { parseTableMetadata, serializeTableMetadata } from '@sluice/lake/iceberg'
import { scanSnapshot } from '@sluice/lake/scan'
import { LOG_TABLE, tableInfoOf } from '@sluice/lake/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type TempLake, tempLake, tierLogRound } from '../testing/temp-lake.js'

const FOREIGN_ID = 6838723292707092922n
const rowOf = (id: number): Row => [BigInt(id), `n${id}`, null, null]

describe('table metadata', () => {
  let lake: TempLake
  beforeEach(async () => {
    lake = await tempLake()
  })
  afterEach(() => lake.close())

  it('keeps 63-bit snapshot ids of other writers exact through our commits', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const table = lake.table(info)
    const c1 = await tierLogRound(table, await table.createIfAbsent(info), 0, 0, 2, rowOf)
    const md = c1.state.metadata
    const current = c1.state.currentSnapshot as Snapshot
    const foreign: Snapshot = {
      ...current,
      'snapshot-id': FOREIGN_ID,
      'parent-snapshot-id': current['snapshot-id'],
      'sequence-number': 2,
      summary: { operation: 'replace', 'total-records': current.summary['total-records'] },
    }
    const rewritten: TableMetadata = {
      ...md,
      'last-sequence-number': 2,
      'current-snapshot-id': FOREIGN_ID,
      refs: { main: { 'snapshot-id': FOREIGN_ID, type: 'branch' } },
      snapshots: [...md.snapshots, foreign],
      'snapshot-log': [
        ...md['snapshot-log'],
        { 'timestamp-ms': md['last-updated-ms'], 'snapshot-id': FOREIGN_ID },
      ],
    }
    const s2 = await table.commitMetadata(c1.state, rewritten)
    expect(s2.flussOffsets).toEqual([{ bucket: 0, offset: 2 }])
    const c3 = await tierLogRound(table, s2, 0, 2, 4, rowOf)
    const text = (await lake.io.read(c3.state.pointer.metadataLocation)).toString()
    expect(text).toContain('"parent-snapshot-id":6838723292707092922')
    expect(text).toContain('"snapshot-id":6838723292707092922')
    expect(c3.state.currentSnapshot?.['parent-snapshot-id']).toBe(FOREIGN_ID)
    expect(c3.state.metadata['snapshot-log'].map(e => e['snapshot-id'])).toContain(FOREIGN_ID)
    expect(serializeTableMetadata(parseTableMetadata(text))).toBe(text)
    expect((await scanSnapshot(lake.io, c3.state.metadata)).length).toBe(4)
  })

  it('round-trips members it does not interpret', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const s = await lake.table(info).createIfAbsent(info)
    const text = serializeTableMetadata({
      ...s.metadata,
      statistics: [{ 'snapshot-id': 9223372036854775807n, 'statistics-path': 'x' }],
    })
    expect(serializeTableMetadata(parseTableMetadata(text))).toBe(text)
    expect(text).toContain('"snapshot-id":9223372036854775807')
  })

  it.each<[string, (md: Record<string, unknown>) => void, RegExp]>([
    ['format v1', md => (md['format-version'] = 1), /format-version 1 is not supported/],
    ['no table-uuid', md => delete md['table-uuid'], /table-uuid/],
    ['a fractional sequence number', md => (md['last-sequence-number'] = 1.5), /last-sequence-number/],
    [
      'a missing current snapshot',
      md => (md['current-snapshot-id'] = 42),
      /current-snapshot-id 42 is no snapshot/,
    ],
    [
      'a dangling ref',
      md => (md.refs = { main: { 'snapshot-id': 42, type: 'branch' } }),
      /ref main points to missing snapshot/,
    ],
    ['no schemas', md => delete md.schemas, /schemas must be an array/],
  ])('refuses metadata with %s as CORRUPT_MESSAGE', async (_what, mutate, message) => {
    const info = tableInfoOf(LOG_TABLE)
    const s = await lake.table(info).createIfAbsent(info)
    const raw = JSON.parse(serializeTableMetadata(s.metadata)) as Record<string, unknown>
    mutate(raw)
    expect(() => parseTableMetadata(JSON.stringify(raw))).toThrow(
      expect.objectContaining({
        name: 'FlussError(CORRUPT_MESSAGE)',
        message: expect.stringMatching(message),
      }),
    )
  })

  it('reads Java-style -1 as no current snapshot', async () => {
    const info = tableInfoOf(LOG_TABLE)
    const s = await lake.table(info).createIfAbsent(info)
    const raw = JSON.parse(serializeTableMetadata(s.metadata))
    raw['current-snapshot-id'] = -1
    expect(parseTableMetadata(JSON.stringify(raw))['current-snapshot-id']).toBeUndefined()
  })
})
