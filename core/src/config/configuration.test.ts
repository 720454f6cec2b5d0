import { describe, expect, expectTypeOf, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { Configuration } from './configuration.js'
import {
  BOOTSTRAP_SERVERS,
  CLIENT_SECURITY_SASL_PASSWORD,
  CLIENT_WRITER_ACKS,
  CLIENT_WRITER_BATCH_SIZE,
  CLIENT_WRITER_ENABLE_IDEMPOTENCE,
  KV_ROCKSDB_COMPRESSION_PER_LEVEL,
  LOG_REPLICA_FETCH_MAX_BYTES,
  LOG_REPLICA_MAX_LAG_TIME,
  type LogFormat,
  TABLE_DATALAKE_FRESHNESS,
  TABLE_LOG_FORMAT,
  TABLE_REPLICATION_FACTOR,
  TABLET_SERVER_ID,
} from './options.js'

function configError(fn: () => unknown): FlussError {
  let thrown: unknown
  try {
    fn()
  } catch (e) {
    thrown = e
  }
  expect(thrown).toBeInstanceOf(FlussError)
  expect((thrown as FlussError).code).toBe(39)
  return thrown as FlussError
}

describe('Configuration.get', () => {
  it('returns typed parsed values and defaults', () => {
    const conf = new Configuration({ 'table.datalake.freshness': '5min', 'table.log.format': 'indexed' })
    expect(conf.get(TABLE_DATALAKE_FRESHNESS)).toBe(300_000)
    expect(conf.get(TABLE_LOG_FORMAT)).toBe('INDEXED')
    expect(conf.get(LOG_REPLICA_MAX_LAG_TIME)).toBe(30_000)
    expect(conf.get(CLIENT_WRITER_ACKS)).toBe('all')
    expect(conf.get(KV_ROCKSDB_COMPRESSION_PER_LEVEL)).toEqual([
      'LZ4',
      'LZ4',
      'LZ4',
      'LZ4',
      'LZ4',
      'ZSTD',
      'ZSTD',
    ])
  })

  it('types values by option kind', () => {
    const conf = new Configuration({ 'bootstrap.servers': 'a:1' })
    expectTypeOf(conf.get(TABLE_LOG_FORMAT)).toEqualTypeOf<LogFormat>()
    expectTypeOf(conf.get(CLIENT_WRITER_ACKS)).toEqualTypeOf<'all' | '-1' | '0' | '1'>()
    expectTypeOf(conf.get(TABLE_DATALAKE_FRESHNESS)).toEqualTypeOf<number>()
    expectTypeOf(conf.get(CLIENT_WRITER_BATCH_SIZE)).toEqualTypeOf<number>()
    expectTypeOf(conf.get(CLIENT_WRITER_ENABLE_IDEMPOTENCE)).toEqualTypeOf<boolean>()
    expectTypeOf(conf.get(BOOTSTRAP_SERVERS)).toEqualTypeOf<string[]>()
    expectTypeOf(conf.getOptional(TABLET_SERVER_ID)).toEqualTypeOf<number | undefined>()
    expect(conf.get(CLIENT_WRITER_BATCH_SIZE)).toBe(2 * 1024 * 1024)
  })

  it('throws a clear error for a required option that is unset, and getOptional returns undefined', () => {
    const conf = new Configuration()
    expect(configError(() => conf.get(TABLET_SERVER_ID)).message).toBe(
      "Missing required configuration 'tablet-server.id'.",
    )
    expect(conf.getOptional(TABLET_SERVER_ID)).toBeUndefined()
    expect(conf.getOptional(LOG_REPLICA_MAX_LAG_TIME)).toBe(30_000)
  })

  it('throws INVALID_CONFIG_EXCEPTION naming the key and expected form for a bad value', () => {
    const conf = new Configuration({ 'log.replica.max-lag-time': 'soon' })
    const e = configError(() => conf.get(LOG_REPLICA_MAX_LAG_TIME))
    expect(e.message).toContain("'log.replica.max-lag-time'")
    expect(e.message).toContain("a duration such as '30s'")
  })

  it('reads fallback keys when the main key is unset', () => {
    const conf = new Configuration({ 'log.fetch.max-bytes': '8mb' })
    expect(conf.has(LOG_REPLICA_FETCH_MAX_BYTES)).toBe(true)
    expect(conf.get(LOG_REPLICA_FETCH_MAX_BYTES)).toBe(8 * 1024 ** 2)
    const both = new Configuration({ 'log.fetch.max-bytes': '8mb', 'log.replica.fetch.max-bytes': '4mb' })
    expect(both.get(LOG_REPLICA_FETCH_MAX_BYTES)).toBe(4 * 1024 ** 2)
  })
})

describe('Configuration.set, has, with, toRecord', () => {
  it('sets parsed or notation values and validates them', () => {
    const conf = new Configuration()
    expect(conf.has(TABLE_DATALAKE_FRESHNESS)).toBe(false)
    conf.set(TABLE_DATALAKE_FRESHNESS, 90_000).set(BOOTSTRAP_SERVERS, 'a:1, b:2')
    expect(conf.has(TABLE_DATALAKE_FRESHNESS)).toBe(true)
    expect(conf.has('table.datalake.freshness')).toBe(true)
    expect(conf.get(TABLE_DATALAKE_FRESHNESS)).toBe(90_000)
    expect(conf.get(BOOTSTRAP_SERVERS)).toEqual(['a:1', 'b:2'])
    configError(() => conf.set(TABLE_REPLICATION_FACTOR, 0))
    expect(conf.has(TABLE_REPLICATION_FACTOR)).toBe(false)
  })

  it('applies overrides in a copy, leaving the original unchanged', () => {
    const base = new Configuration({ 'table.log.ttl': '1d', 'table.log.format': 'ARROW' })
    const next = base.with({ 'table.log.ttl': '2d' })
    expect(next.toRecord()).toEqual({ 'table.log.ttl': '2d', 'table.log.format': 'ARROW' })
    expect(base.toRecord()['table.log.ttl']).toBe('1d')
  })

  it('lets an override under a fallback key replace the main key', () => {
    const base = new Configuration({ 'log.replica.fetch.max-bytes': '4mb' })
    expect(base.with({ 'log.fetch.max-bytes': '8mb' }).get(LOG_REPLICA_FETCH_MAX_BYTES)).toBe(8 * 1024 ** 2)
  })

  it('renders strings as given and formats other values the Fluss way', () => {
    const conf = new Configuration({ 'table.log.ttl': '3 days', 'kv.snapshot.interval': 120_000 })
    conf.set(BOOTSTRAP_SERVERS, ['a:1', 'b:2']).set(CLIENT_SECURITY_SASL_PASSWORD, 'hunter2')
    expect(conf.toRecord()).toEqual({
      'table.log.ttl': '3 days',
      'kv.snapshot.interval': '2min',
      'bootstrap.servers': 'a:1,b:2',
      'client.security.sasl.password': 'hunter2',
    })
    expect(conf.toRecord({ redactSecrets: true })['client.security.sasl.password']).toBe('******')
  })
})

describe('Configuration.load', () => {
  it('parses every known key eagerly', () => {
    const e = configError(() =>
      Configuration.load({ 'kv.snapshot.interval': 'often' }, { source: 'FLUSS_CONF' }),
    )
    expect(e.message).toMatch(/^FLUSS_CONF: Invalid value 'often' for 'kv.snapshot.interval'/)
  })

  it('rejects values that are not strings, numbers, booleans or string lists', () => {
    expect(
      configError(() => Configuration.load({ 'kv.snapshot.interval': { minutes: 3 } })).message,
    ).toContain("'kv.snapshot.interval'")
    configError(() => Configuration.load({ 'bootstrap.servers': [1, 2] }))
    configError(() => Configuration.load({ 'client.writer.retries': null }))
  })

  it('rejects unregistered keys with one of our prefixes as typos, suggesting the nearest key', () => {
    const e = configError(() => Configuration.load({ 'log.replica.max-lagtime': '10s' }))
    expect(e.message).toBe(
      "Unknown configuration key 'log.replica.max-lagtime'. Did you mean 'log.replica.max-lag-time'?",
    )
    expect(configError(() => Configuration.load({ 'table.foo': 'x' })).message).toContain(
      "'table.foo' is not a recognized Fluss table property",
    )
  })

  it('ignores unused Fluss keys and foreign keys with warnings, and passes lake catalog keys through', () => {
    const conf = Configuration.load({
      'zookeeper.address': 'zk:2181',
      'spring.profile': 'x',
      'datalake.iceberg.warehouse': 's3://b/w',
      'default.bucket.number': 4,
    })
    expect(conf.keys().sort()).toEqual(['datalake.iceberg.warehouse', 'default.bucket.number'])
    expect(conf.warnings).toHaveLength(2)
    expect(conf.warnings[0]).toContain('zookeeper.address')
    expect(conf.warnings[1]).toContain('spring.profile')
    expect(conf.withPrefix('datalake.iceberg.')).toEqual({ warehouse: 's3://b/w' })
  })
})
