import { describe, expect, it } from 'vitest'
import type { TableSpec } from './canonical.js'
import { ALL_TYPES_COLUMNS, allTypesLogTable, datasetRow } from './dataset.js'
import type { Driver, VerifyResult } from './drivers/driver.js'
import { javaCommand, pythonCommand, runDriver } from './drivers/process-runner.js'
import { compatSuite } from './harness.js'
import { BUCKETS, expectExact, PROJECTION } from './log-checks.js'

/** Issue 3: log tables written and read by the official Java and Python clients and our SDK. */

const JAVA_ROWS = 100_000
const REVERSE_ROWS = 20_000
const SAMPLE_ROWS = [
  ...Array.from({ length: 300 }, (_, i) => i),
  4999,
  9999,
  12_345,
  99_999,
  100_002,
  100_003,
  123_456,
]

const { env, db } = await compatSuite('log')
/** The per-bucket layout each client read from the Java table. */
const readLayouts = new Map<string, VerifyResult['buckets']>()

function driver(name: string): Driver {
  return name === 'java' ? env.java : name === 'python' ? env.python : env.sdk
}

describe('the all-types dataset', () => {
  it('is identical in TypeScript, Java and Python (rows 0..299 and edge rows, two versions)', async () => {
    for (const salt of [0, 1]) {
      const expected = SAMPLE_ROWS.map(i => datasetRow(i, salt))
      for (const command of [javaCommand(), pythonCommand()]) {
        const run = await runDriver(command, ['sample', SAMPLE_ROWS.join(','), '--salt', String(salt)])
        expect(run.code, run.stderr).toBe(0)
        expect(run.result?.rows).toEqual(expected)
      }
    }
  })

  it('covers every primitive type, with nulls in every nullable column', () => {
    const rows = Array.from({ length: 5000 }, (_, i) => datasetRow(i))
    ALL_TYPES_COLUMNS.forEach((c, k) => {
      const nulls = rows.filter(r => r[k] === null).length
      if (c.nullable === false) expect(nulls, c.name).toBe(0)
      else expect(nulls, c.name).toBeGreaterThan(0)
    })
  })
})

describe('log table written by the Java client (100,000 rows, 4 buckets)', () => {
  const table = 'all_types_java'

  it('Java creates the all-types log table and appends 100,000 rows', async () => {
    await env.java.createTable(db, table, allTypesLogTable(BUCKETS))
    await env.java.write(db, table, JAVA_ROWS)
  })

  it.each(['java', 'python', 'ts-sdk'])(
    '%s reads every row back exactly from the earliest offsets, then the 2-of-25 projection',
    async name => {
      const result = await driver(name).verify(db, table, JAVA_ROWS, { project: PROJECTION })
      expectExact(result, JAVA_ROWS)
      readLayouts.set(name, result.buckets)
    },
  )

  it('all three clients saw the same rows at the same offsets', () => {
    const layouts = [...readLayouts.values()]
    expect(layouts).toHaveLength(3)
    for (const layout of layouts) expect(layout).toEqual(layouts[0])
  })
})

describe('the reverse directions (20,000 rows each, on their own tables)', () => {
  /** pyfluss derives Fluss types from pyarrow types, and pyarrow has no CHAR: c_char becomes STRING. */
  const pythonSpec: TableSpec = {
    ...allTypesLogTable(BUCKETS),
    columns: ALL_TYPES_COLUMNS.map(c => (c.type.startsWith('CHAR') ? { ...c, type: 'STRING' } : c)),
  }

  it('Python creates its table (c_char as STRING) and appends; Java and the SDK read it exactly', async () => {
    const table = 'all_types_python'
    await env.python.createTable(db, table, pythonSpec)
    await env.python.write(db, table, REVERSE_ROWS, { salt: 2 })
    for (const reader of [env.java, env.sdk]) {
      expectExact(
        await reader.verify(db, table, REVERSE_ROWS, { salt: 2, project: PROJECTION }),
        REVERSE_ROWS,
      )
    }
  })

  it('the SDK creates its table and appends; Java and Python read it exactly', async () => {
    const table = 'all_types_sdk'
    await env.sdk.createTable(db, table, allTypesLogTable(BUCKETS))
    await env.sdk.write(db, table, REVERSE_ROWS, { salt: 3 })
    for (const reader of [env.java, env.python]) {
      expectExact(
        await reader.verify(db, table, REVERSE_ROWS, { salt: 3, project: PROJECTION }),
        REVERSE_ROWS,
      )
    }
  })
})
