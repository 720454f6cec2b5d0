import { setTimeout as delay } from 'node:timers/promises'
import { ERRORS, type ErrorName } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { ALL_TYPES_COLUMNS, allTypesLogTable, datasetRow } from './dataset.js'
import type { Driver } from './drivers/driver.js'
import { expectChanges, microsecondRow } from './expect-log.js'
import { compatSuite } from './harness.js'
import { BUCKETS, expectExact, PROJECTION } from './log-checks.js'

/**
 * Issue 3, beyond the bulk round trips: Arrow compression codecs, ListOffsets, tailing reads
 * (long-poll fetches), reads from inside a batch, and errors as the official clients see them.
 */

const { env, db } = await compatSuite('paths')

describe('compression, offsets and tailing reads', () => {
  const ROWS = 5000

  it.each(['LZ4_FRAME', 'NONE'])(
    '%s Arrow compression: Java writes, Java, Python and the SDK read exactly (projected too)',
    async compression => {
      const table = `all_types_${compression.toLowerCase()}`
      const spec = {
        ...allTypesLogTable(BUCKETS),
        properties: { 'table.log.arrow.compression.type': compression },
      }
      await env.java.createTable(db, table, spec)
      await env.java.write(db, table, ROWS, { salt: 5 })
      for (const reader of [env.java, env.python, env.sdk] as Driver[]) {
        expectExact(await reader.verify(db, table, ROWS, { salt: 5, project: PROJECTION }), ROWS)
      }
    },
  )

  it('ListOffsets by earliest, latest and timestamp give the same offsets to every client', async () => {
    const table = 'offsets'
    await env.sdk.createTable(db, table, allTypesLogTable(BUCKETS))
    await env.sdk.write(db, table, 1000)
    const afterFirst = await env.sdk.offsets(db, table, 'latest')
    await delay(50)
    const between = Date.now()
    await delay(50)
    await env.sdk.write(db, table, 1000, { start: 1000 })
    const total = Object.values(await env.sdk.offsets(db, table, 'latest')).reduce((a, b) => a + b, 0)
    expect(total).toBe(2000)
    for (const reader of [env.java, env.python, env.sdk] as Driver[]) {
      expect(Object.values(await reader.offsets(db, table, 'earliest'))).toEqual([0, 0, 0, 0])
      expect(await reader.offsets(db, table, between), reader.name).toEqual(afterFirst)
    }
  })

  it('Java and SDK scanners tailing an empty table receive the rows Python appends meanwhile', async () => {
    const table = 'tailed'
    await env.java.createTable(db, table, allTypesLogTable(BUCKETS))
    // pyfluss's dict rows keep timestamps at microseconds (a pandas Timestamp is converted as a datetime).
    const rows = Array.from({ length: 2000 }, (_, i) => microsecondRow(ALL_TYPES_COLUMNS, datasetRow(i, 6)))
    const readers = [env.java.changelog(db, table, rows.length), env.sdk.changelog(db, table, rows.length)]
    await delay(3000)
    await env.python.append(db, table, rows)
    const expected = rows.map(row => ({ change: '+A', row }))
    for (const records of await Promise.all(readers)) expectChanges(records, expected, [0])
  })
})

describe('reads from an offset, and errors', () => {
  /** Written by the LZ4_FRAME test above. */
  const table = 'all_types_lz4_frame'

  it('each client reads a bucket from an offset inside a batch, starting exactly there', async () => {
    const offsets = Object.entries(await env.java.offsets(db, table, 'latest'))
    const [bucket, latest] = offsets.reduce((a, b) => (b[1] > a[1] ? b : a))
    expect(latest).toBeGreaterThan(4)
    for (const offset of [1, Math.floor(latest / 2) + 1]) {
      for (const reader of [env.java, env.python, env.sdk] as Driver[]) {
        const read = await reader.scanFrom(db, table, Number(bucket), offset)
        expect(read, `${reader.name} from offset ${offset} of bucket ${bucket}`).toMatchObject({
          records: latest - offset,
          firstOffset: offset,
          nextOffset: latest,
          latest,
        })
      }
    }
  })

  it('errors reach the official clients as Fluss errors (Java exceptions, pyfluss codes)', async () => {
    const spec = env.java.file('spec', allTypesLogTable(BUCKETS))
    const bad = env.java.file('spec', {
      ...allTypesLogTable(BUCKETS),
      properties: { 'table.log.arrow.compression.type': 'BOGUS' },
    })
    const future = String(Date.now() + 3_600_000)
    const cases: [string[], string, ErrorName][] = [
      [['create-database', db], 'DatabaseAlreadyExistException', 'DATABASE_ALREADY_EXIST'],
      [['create-table', db, table, spec], 'TableAlreadyExistException', 'TABLE_ALREADY_EXIST'],
      [['create-table', 'no_such_db', 't', spec], 'DatabaseNotExistException', 'DATABASE_NOT_EXIST'],
      [['offsets', db, 'no_such_table', 'latest'], 'TableNotExistException', 'TABLE_NOT_EXIST'],
      [['create-table', db, 'bad_config', bad], 'InvalidConfigException', 'INVALID_CONFIG_EXCEPTION'],
      [['offsets', db, table, future], 'InvalidTimestampException', 'INVALID_TIMESTAMP_EXCEPTION'],
    ]
    for (const [args, javaException, name] of cases) {
      expect(await env.java.error(args)).toContain(`org.apache.fluss.exception.${javaException}`)
      expect(await env.python.error(args)).toContain(`(code=${ERRORS[name].code})`)
    }
  })

  it('a read beyond the end of a bucket fails with LOG_OFFSET_OUT_OF_RANGE in every client', async () => {
    const args = ['scan-from', db, table, '0', '999999999']
    expect(await env.java.error(args)).toContain('org.apache.fluss.exception.LogOffsetOutOfRangeException')
    expect(await env.python.error(args)).toContain(
      'Received request for offset 999999999 for table bucket TableBucket',
    )
    await expect(env.sdk.scanFrom(db, table, 0, 999_999_999)).rejects.toMatchObject({
      errorName: 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
    })
  })
})
