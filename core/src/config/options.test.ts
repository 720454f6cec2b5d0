import { describe, expect, it } from 'vitest'
import type { ConfigOption } from './option.js'
import * as registry from './options.js'
import {
  ALL_OPTIONS,
  classifyKey,
  FLUSS_KEYS_NOT_USED,
  LOG_REPLICA_FETCH_MAX_BYTES,
  optionByKey,
  optionsInScope,
  SCOPES,
} from './options.js'

/** Every `table.*` key of Fluss 0.9.1's ConfigOptions: all must be accepted. */
const FLUSS_091_TABLE_KEYS = [
  'table.auto-increment.cache-size',
  'table.auto-partition.enabled',
  'table.auto-partition.key',
  'table.auto-partition.num-precreate',
  'table.auto-partition.num-retention',
  'table.auto-partition.time-unit',
  'table.auto-partition.time-zone',
  'table.changelog.image',
  'table.datalake.auto-compaction',
  'table.datalake.auto-expire-snapshot',
  'table.datalake.enabled',
  'table.datalake.format',
  'table.datalake.freshness',
  'table.delete.behavior',
  'table.kv.format',
  'table.kv.format-version',
  'table.log.arrow.compression.type',
  'table.log.arrow.compression.zstd.level',
  'table.log.format',
  'table.log.tiered.local-segments',
  'table.log.ttl',
  'table.merge-engine',
  'table.merge-engine.versioned.ver-column',
  'table.replication.factor',
]

/** Fluss's ALTERABLE_TABLE_OPTIONS (the 1.0 list, a superset of 0.9.1's three). */
const ALTERABLE = [
  'table.datalake.enabled',
  'table.datalake.historical-partition.enabled',
  'table.datalake.freshness',
  'table.datalake.auto-compaction',
  'table.log.ttl',
  'table.log.tiered.local-segments',
  'table.log.local-ttl',
  'table.auto-partition.enabled',
  'table.auto-partition.num-retention',
  'table.auto-partition.num-precreate',
  'table.statistics.columns',
  'table.kv.standby-replica.enabled',
]

function isOption(v: unknown): v is ConfigOption<unknown> {
  return typeof v === 'object' && v !== null && 'key' in v && 'parse' in v && 'scope' in v
}

describe('option registry', () => {
  it('has unique keys and fallback keys', () => {
    const keys = ALL_OPTIONS.flatMap(o => [o.key, ...o.fallbackKeys])
    expect(new Set(keys).size).toBe(keys.length)
  })

  it('exports every option as a constant named after its key, and lists every exported option', () => {
    const exported = Object.entries(registry).filter(([, v]) => isOption(v)) as [
      string,
      ConfigOption<unknown>,
    ][]
    for (const [name, opt] of exported) {
      expect(name).toBe(opt.key.toUpperCase().replace(/[.-]/g, '_'))
    }
    expect(new Set(exported.map(([, o]) => o))).toEqual(new Set(ALL_OPTIONS))
  })

  it('describes every option and gives it a known scope', () => {
    for (const opt of ALL_OPTIONS) {
      expect(opt.descriptionText.length, opt.key).toBeGreaterThan(10)
      expect(SCOPES).toContain(opt.scope)
    }
  })

  it('has defaults that survive format and parse and lie within the range', () => {
    for (const opt of ALL_OPTIONS) {
      if (opt.defaultValue === undefined) continue
      expect(opt.parse(opt.format(opt.defaultValue)), opt.key).toEqual(opt.defaultValue)
      if (opt.min !== undefined && opt.max !== undefined)
        expect(opt.min, opt.key).toBeLessThanOrEqual(opt.max)
    }
  })

  it('bounds every queue, buffer, batch, request size and wait with a maximum', () => {
    const bounded = /(max|size|bytes|queue|batch|wait|timeout|inflight|concurrent|segments|threads?|pool|num)/
    for (const opt of ALL_OPTIONS) {
      if (opt.kind !== 'int' && opt.kind !== 'memory' && opt.kind !== 'duration') continue
      if (!bounded.test(opt.key) || opt.scope === 'table') continue
      if (/(interval|expiration|ttl|lag-time|idle-time|purge)/.test(opt.key)) continue
      expect(opt.min !== undefined || opt.max !== undefined, `${opt.key} has no range`).toBe(true)
    }
  })

  it('accepts every table key of Fluss 0.9.1 and only table options under table.', () => {
    for (const key of FLUSS_091_TABLE_KEYS) expect(optionByKey(key)?.scope, key).toBe('table')
    for (const opt of ALL_OPTIONS) expect(opt.key.startsWith('table.')).toBe(opt.scope === 'table')
  })

  it("marks exactly Fluss's alterable table options", () => {
    const alterable = optionsInScope('table')
      .filter(o => o.alterable)
      .map(o => o.key)
    expect(alterable.sort()).toEqual([...ALTERABLE].sort())
    expect(ALL_OPTIONS.filter(o => o.alterable && o.scope !== 'table')).toEqual([])
  })

  it('keeps the brief defaults', () => {
    const defaults: Record<string, unknown> = {
      'table.log.arrow.compression.type': 'ZSTD',
      'table.log.arrow.compression.zstd.level': 3,
      'table.log.ttl': 7 * 86_400_000,
      'table.log.tiered.local-segments': 2,
      'table.datalake.freshness': 180_000,
      'log.segment.file-size': 1024 ** 3,
      'log.index.interval-size': 4096,
      'log.replica.max-lag-time': 30_000,
      'log.replica.min-in-sync-replicas-number': 1,
      'remote.log.task-interval-duration': 60_000,
      'kv.snapshot.interval': 600_000,
      'kv.snapshot.num-retained': 2,
      'netty.server.max-request-size': 100 * 1024 ** 2,
      'netty.connection.max-idle-time': 600_000,
      'client.writer.batch-size': 2 * 1024 ** 2,
      'client.writer.batch-timeout': 100,
      'client.writer.buffer.memory-size': 64 * 1024 ** 2,
      'client.writer.acks': 'all',
      'client.request-timeout': 30_000,
      'gateway.rest.write.max-request-bytes': 32 * 1024 ** 2,
      'gateway.rest.write.max-rows': 10_000,
      'gateway.rest.lookup.max-keys': 128,
      'sluice.metastore.table': 'sluice-metadata',
      'sluice.local.data-dir': '.sluice',
    }
    for (const [key, value] of Object.entries(defaults))
      expect(optionByKey(key)?.defaultValue, key).toEqual(value)
    expect(optionByKey('log.segment.file-size')?.max).toBe(2 * 1024 ** 3)
  })

  it('finds options by fallback key', () => {
    expect(optionByKey('log.fetch.max-bytes')).toBe(LOG_REPLICA_FETCH_MAX_BYTES)
  })
})

describe('classifyKey', () => {
  it('tells registered, passthrough, unused Fluss, typo and foreign keys apart', () => {
    expect(classifyKey('log.replica.max-lag-time')).toBe('registered')
    expect(classifyKey('datalake.iceberg.warehouse')).toBe('passthrough')
    expect(classifyKey('zookeeper.address')).toBe('not-used')
    expect(classifyKey('log.replica.max-lagtime')).toBe('unknown-ours')
    expect(classifyKey('table.foo')).toBe('unknown-ours')
    expect(classifyKey('sluice.metastore.tabel')).toBe('unknown-ours')
    expect(classifyKey('spring.application.name')).toBe('foreign')
  })

  it('never lists a registered key as unused', () => {
    for (const key of FLUSS_KEYS_NOT_USED) expect(optionByKey(key), key).toBeUndefined()
  })
})
