import { describe, expect, it } from 'vitest'
import { type ErrorName, FlussError } from '../errors/index.js'
import {
  optionByKey,
  TABLE_AUTO_PARTITION_TIME_UNIT,
  TABLE_DATALAKE_FRESHNESS,
  TABLE_DELETE_BEHAVIOR,
  TABLE_LOG_TTL,
  TABLE_MERGE_ENGINE,
} from './options.js'
import { validateAlterTableProperties, validateTableProperties } from './table-properties.js'

function rejection(fn: () => unknown, name: ErrorName = 'INVALID_CONFIG_EXCEPTION'): string {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).errorName).toBe(name)
    return (e as FlussError).message
  }
  throw new Error(`expected ${name}`)
}

describe('validateTableProperties', () => {
  it('returns the table view with parsed values and defaults', () => {
    const conf = validateTableProperties({
      'table.merge-engine': 'first_row',
      'table.auto-partition.time-unit': 'hour',
      'table.datalake.freshness': '30s',
    })
    expect(conf.get(TABLE_MERGE_ENGINE)).toBe('FIRST_ROW')
    expect(conf.get(TABLE_AUTO_PARTITION_TIME_UNIT)).toBe('HOUR')
    expect(conf.get(TABLE_DATALAKE_FRESHNESS)).toBe(30_000)
    expect(conf.get(TABLE_LOG_TTL)).toBe(7 * 86_400_000)
  })

  it("rejects an unknown table.* key with Fluss's message", () => {
    expect(rejection(() => validateTableProperties({ 'table.foo': 'x' }))).toBe(
      "'table.foo' is not a recognized Fluss table property in the current cluster version. You may be using an older Fluss cluster that does not support this property.",
    )
  })

  it('rejects a key outside table.* as a custom property', () => {
    for (const key of ['owner', 'log.segment.file-size']) {
      expect(rejection(() => validateTableProperties({ [key]: 'x' }))).toBe(
        `'${key}' is not a Fluss table property. Please use '.customProperty(..)' to set custom properties.`,
      )
    }
  })

  it.each([
    ['table.log.arrow.compression.zstd.level', '23', 'at most 22'],
    ['table.log.arrow.compression.zstd.level', '0', 'at least 1'],
    ['table.replication.factor', '0', 'at least 1'],
    ['table.log.tiered.local-segments', '0', 'at least 1'],
    ['table.log.format', 'parquet', 'one of ARROW, INDEXED, COMPACTED'],
    ['table.merge-engine', 'last_row', 'one of FIRST_ROW, VERSIONED, AGGREGATION'],
    ['table.delete.behavior', 'drop', 'one of ALLOW, IGNORE, DISABLE'],
    ['table.datalake.enabled', 'yes', "'true' or 'false'"],
    ['table.log.ttl', '7 weeks', 'a duration'],
  ])('rejects %s = %s', (key, value, expected) => {
    const message = rejection(() => validateTableProperties({ [key]: value }))
    expect(message).toContain(`'${key}'`)
    expect(message).toContain(expected)
  })

  it('requires the version column for the VERSIONED merge engine', () => {
    expect(rejection(() => validateTableProperties({ 'table.merge-engine': 'versioned' }))).toBe(
      "'table.merge-engine.versioned.ver-column' must be set for versioned merge engine.",
    )
    validateTableProperties({
      'table.merge-engine': 'versioned',
      'table.merge-engine.versioned.ver-column': 'ts',
    })
  })

  it('rejects AGGREGATION with the WAL changelog image', () => {
    const props = { 'table.merge-engine': 'aggregation', 'table.changelog.image': 'wal' }
    expect(rejection(() => validateTableProperties(props))).toContain(
      "does not support 'WAL' changelog image mode",
    )
  })

  it('rejects ALLOW deletes with FIRST_ROW and VERSIONED, accepts it with AGGREGATION', () => {
    const props = { 'table.merge-engine': 'first_row', 'table.delete.behavior': 'allow' }
    expect(rejection(() => validateTableProperties(props))).toContain(
      "Table with 'FIRST_ROW' merge engine does not support delete operations.",
    )
    const agg = validateTableProperties({
      'table.merge-engine': 'aggregation',
      'table.delete.behavior': 'allow',
    })
    expect(agg.get(TABLE_DELETE_BEHAVIOR)).toBe('ALLOW')
  })

  it('applies primary-key and partitioning rules when the table shape is known', () => {
    const log = { hasPrimaryKey: false }
    expect(rejection(() => validateTableProperties({ 'table.merge-engine': 'first_row' }, log))).toBe(
      'Merge engine is only supported in primary key table.',
    )
    expect(rejection(() => validateTableProperties({ 'table.delete.behavior': 'ignore' }, log))).toContain(
      'only supported for primary key tables',
    )
    expect(
      rejection(() => validateTableProperties({ 'table.log.format': 'indexed' }, { hasPrimaryKey: true })),
    ).toContain('supports ARROW or COMPACTED log format')
    const auto = { 'table.auto-partition.enabled': 'true' }
    expect(rejection(() => validateTableProperties(auto, { partitioned: false }))).toContain(
      'auto partition is only supported for partitioned table',
    )
    validateTableProperties(auto, { partitioned: true })
    validateTableProperties({ 'table.log.format': 'indexed' }, log)
  })
})

describe('validateAlterTableProperties', () => {
  const current = { 'table.datalake.format': 'iceberg', 'table.log.ttl': '1d' }

  it('applies sets and resets of alterable options', () => {
    const conf = validateAlterTableProperties(
      { 'table.datalake.freshness': '1min', 'table.log.ttl': null },
      current,
    )
    expect(conf.get(TABLE_DATALAKE_FRESHNESS)).toBe(60_000)
    expect(conf.has(TABLE_LOG_TTL)).toBe(false)
    expect(conf.toRecord()).toEqual({
      'table.datalake.format': 'iceberg',
      'table.datalake.freshness': '1min',
    })
  })

  it("rejects a non-alterable option with INVALID_ALTER_TABLE_EXCEPTION and Fluss's message", () => {
    expect(
      rejection(
        () => validateAlterTableProperties({ 'table.log.format': 'INDEXED' }),
        'INVALID_ALTER_TABLE_EXCEPTION',
      ),
    ).toBe("The option 'table.log.format' is not supported to alter yet.")
    rejection(
      () => validateAlterTableProperties({ 'table.merge-engine': null }),
      'INVALID_ALTER_TABLE_EXCEPTION',
    )
  })

  it('rejects unknown table keys and bad values as INVALID_CONFIG_EXCEPTION', () => {
    expect(rejection(() => validateAlterTableProperties({ 'table.nope': '1' }))).toContain(
      "'table.nope' is not a recognized",
    )
    expect(rejection(() => validateAlterTableProperties({ 'table.log.ttl': 'forever' }))).toContain(
      "'table.log.ttl'",
    )
  })

  it('leaves custom properties to the caller, except lake-format ones of a lake table', () => {
    expect(validateAlterTableProperties({ owner: 'me' }, current).toRecord()).toEqual(current)
    const lake = { ...current, 'table.datalake.enabled': 'true' }
    expect(rejection(() => validateAlterTableProperties({ 'iceberg.write.format': 'orc' }, lake))).toBe(
      "Property 'iceberg.write.format' is not supported to alter which is for datalake table.",
    )
  })
})

describe('table options Sluice does not implement', () => {
  const refused: [string, string][] = [
    ['table.datalake.auto-compaction', 'true'],
    ['table.datalake.auto-expire-snapshot', 'true'],
    ['table.datalake.historical-partition.enabled', 'true'],
    ['table.kv.standby-replica.enabled', 'true'],
    ['table.statistics.columns', 'a,b'],
  ]

  it('refuses them at create and at alter, naming the key and the value', () => {
    for (const [key, value] of refused) {
      const message = rejection(() => validateTableProperties({ [key]: value }))
      expect(message, key).toContain(`'${key}' = '${value}' is not supported by Sluice`)
      if (!optionByKey(key)?.alterable) continue // ALTER TABLE refuses it whatever the value
      expect(
        rejection(() => validateAlterTableProperties({ [key]: value }, {})),
        key,
      ).toBe(message)
    }
    expect(
      rejection(() => validateTableProperties({ 'table.kv.standby-replica.enabled': 'TRUE' })),
    ).toContain("Accepted: 'false'.")
  })

  it('accepts the values that ask for what the cluster does anyway', () => {
    const conf = validateTableProperties({
      'table.datalake.auto-compaction': 'false',
      'table.datalake.auto-expire-snapshot': 'false',
      'table.datalake.historical-partition.enabled': 'false',
      'table.kv.standby-replica.enabled': 'false',
    })
    expect(conf.has('table.kv.standby-replica.enabled')).toBe(true)
  })
})
