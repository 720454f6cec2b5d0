import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  KV_SNAPSHOT_INTERVAL,
  LOG_REPLICA_MAX_LAG_TIME,
  LOG_SEGMENT_FILE_SIZE,
  SLUICE_LOCAL_DATA_DIR,
  TABLET_SERVER_ID,
} from './options.js'
import { loadServerConfig, parseFlussConf } from './server-config.js'

const dir = mkdtempSync(join(tmpdir(), 'sluice-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function writeConfig(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

function loadError(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    expect((e as FlussError).code).toBe(39)
    return (e as FlussError).message
  }
  throw new Error('expected INVALID_CONFIG_EXCEPTION')
}

describe('loadServerConfig', () => {
  it('applies FLUSS_CONF over the file over the defaults', () => {
    const filePath = writeConfig('precedence.yaml', 'tablet-server.id: 1\nlog.replica.max-lag-time: 10s\n')
    const env = {
      FLUSS_CONF: JSON.stringify({ 'log.replica.max-lag-time': '20s', 'kv.snapshot.interval': 60000 }),
    }
    const { config, warnings } = loadServerConfig({ filePath, env })
    expect(config.get(TABLET_SERVER_ID)).toBe(1)
    expect(config.get(LOG_REPLICA_MAX_LAG_TIME)).toBe(20_000)
    expect(config.get(KV_SNAPSHOT_INTERVAL)).toBe(60_000)
    expect(config.get(LOG_SEGMENT_FILE_SIZE)).toBe(1024 ** 3)
    expect(warnings).toEqual([])
  })

  it('works with neither file nor FLUSS_CONF', () => {
    const { config } = loadServerConfig({ env: {} })
    expect(config.keys()).toEqual([])
    expect(config.get(LOG_REPLICA_MAX_LAG_TIME)).toBe(30_000)
  })

  it('maps SLUICE_DATA_DIR below FLUSS_CONF', () => {
    expect(loadServerConfig({ env: { SLUICE_DATA_DIR: '/d' } }).config.get(SLUICE_LOCAL_DATA_DIR)).toBe('/d')
    const env = { SLUICE_DATA_DIR: '/d', FLUSS_CONF: '{"sluice.local.data-dir":"/e"}' }
    expect(loadServerConfig({ env }).config.get(SLUICE_LOCAL_DATA_DIR)).toBe('/e')
  })

  it('returns warnings for Fluss keys Sluice does not use and foreign keys', () => {
    const filePath = writeConfig('warn.yaml', 'zookeeper.address: zk:2181\nmy.own.key: 1\n')
    const { warnings } = loadServerConfig({ filePath, env: {} })
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toBe(
      `${filePath}: 'zookeeper.address' is a Fluss option that Sluice does not use; ignored.`,
    )
  })

  it('rejects a malformed file line, naming file and line', () => {
    const filePath = writeConfig('bad-line.yaml', 'tablet-server.id: 1\noops\n')
    expect(loadError(() => loadServerConfig({ filePath, env: {} }))).toBe(
      `${filePath}:2: expected 'key: value'`,
    )
  })

  it('rejects a bad value in the file, naming the file and key', () => {
    const filePath = writeConfig('bad-value.yaml', 'log.segment.file-size: 3gb\n')
    const message = loadError(() => loadServerConfig({ filePath, env: {} }))
    expect(message).toContain(filePath)
    expect(message).toContain("'log.segment.file-size'")
    expect(message).toContain('at most 2 gb')
  })

  it('refuses server keys Sluice does not implement at start, naming source and key, and accepts their defaults', () => {
    const filePath = writeConfig('refused.yaml', 'server.buffer.memory-size: 512mb\n')
    const message = loadError(() => loadServerConfig({ filePath, env: {} }))
    expect(message).toContain(filePath)
    expect(message).toContain("'server.buffer.memory-size' = '512mb' is not supported by Sluice")
    expect(message).toContain("Accepted: '256mb' (the default).")
    for (const [key, value] of [
      ['log.file-preallocate', true],
      ['server.data-disk.write-limit-ratio', 0.9],
      ['coordinator.producer-offsets.ttl', '12h'],
      ['lake.tiering.auto-expire-snapshot', true],
      ['kv.rocksdb.block.cache-size', '1gb'],
    ] as const) {
      const refused = loadError(() =>
        loadServerConfig({ env: { FLUSS_CONF: JSON.stringify({ [key]: value }) } }),
      )
      expect(refused, key).toContain(`FLUSS_CONF: '${key}' = `)
      expect(refused, key).toContain('is not supported by Sluice')
    }
    const defaults = { 'server.buffer.memory-size': '256mb', 'log.file-preallocate': false }
    expect(loadServerConfig({ env: { FLUSS_CONF: JSON.stringify(defaults) } }).warnings).toEqual([])
  })

  it('rejects a typo of a known key in the file', () => {
    const filePath = writeConfig('typo.yaml', 'log.replica.max-lag-tme: 10s\n')
    expect(loadError(() => loadServerConfig({ filePath, env: {} }))).toContain(
      "Did you mean 'log.replica.max-lag-time'?",
    )
  })

  it('rejects a missing file', () => {
    const filePath = join(dir, 'absent.yaml')
    expect(loadError(() => loadServerConfig({ filePath, env: {} }))).toContain(
      `Cannot read configuration file '${filePath}'`,
    )
  })

  it('rejects FLUSS_CONF that is not JSON', () => {
    expect(loadError(() => loadServerConfig({ env: { FLUSS_CONF: '{bad' } }))).toMatch(
      /^FLUSS_CONF is not valid JSON/,
    )
  })

  it('rejects FLUSS_CONF that is not a JSON object', () => {
    for (const text of ['[1,2]', '"x"', 'null', '3']) {
      expect(loadError(() => parseFlussConf(text))).toBe(
        'FLUSS_CONF must be a JSON object of option keys to values.',
      )
    }
  })

  it('rejects a bad value in FLUSS_CONF, naming FLUSS_CONF and the key', () => {
    const env = { FLUSS_CONF: '{"log.replica.max-lag-time": true}' }
    expect(loadError(() => loadServerConfig({ env }))).toMatch(
      /^FLUSS_CONF: Invalid value 'true' for 'log.replica.max-lag-time'/,
    )
  })

  it('takes secrets from SLUICE_SECRETS over SLUICE_SECRETS_FILE over FLUSS_CONF, secret keys only', () => {
    const file = writeConfig(
      'secrets.json',
      JSON.stringify({ 'security.sasl.plain.jaas.config': 'from-file' }),
    )
    const listenerKey = 'security.sasl.listener.name.internal.plain.jaas.config'
    const env = {
      FLUSS_CONF: JSON.stringify({ 'security.sasl.plain.jaas.config': 'from-conf', 'tablet-server.id': 3 }),
      SLUICE_SECRETS_FILE: file,
      SLUICE_SECRETS: JSON.stringify({ [listenerKey]: 'from-env' }),
    }
    const { config } = loadServerConfig({ env })
    expect(config.rawValues()['security.sasl.plain.jaas.config']).toBe('from-file')
    expect(config.rawValues()[listenerKey]).toBe('from-env')
    expect(config.get(TABLET_SERVER_ID)).toBe(3)
    expect(config.toRecord({ redactSecrets: true })[listenerKey]).toBe('******')
    expect(
      loadError(() =>
        loadServerConfig({ env: { SLUICE_SECRETS: JSON.stringify({ 'tablet-server.id': 1 }) } }),
      ),
    ).toMatch(/^SLUICE_SECRETS: 'tablet-server.id' is not a secret option/)
    const broken = loadError(() => loadServerConfig({ env: { SLUICE_SECRETS: '{"x": "hunter2' } }))
    expect(broken).toBe('SLUICE_SECRETS is not valid JSON')
    expect(
      loadError(() => loadServerConfig({ env: { SLUICE_SECRETS_FILE: join(dir, 'none.json') } })),
    ).toMatch(/Cannot read configuration file/)
  })
  it('adds one JSON object of secret keys per SLUICE_SECRETS_<NAME> variable, under SLUICE_SECRETS', () => {
    const env = {
      SLUICE_SECRETS: JSON.stringify({ 'sluice.security.sasl.internal.password': 'from-main' }),
      SLUICE_SECRETS_ADMIN: JSON.stringify({ 'sluice.security.sasl.plain.user.admin': 'admin-pw' }),
      SLUICE_SECRETS_TLS: JSON.stringify({
        'sluice.security.ssl.certificate': 'CERT',
        'sluice.security.ssl.key': 'KEY',
        'sluice.security.sasl.internal.password': 'from-tls',
      }),
      SLUICE_SECRETS_lower: JSON.stringify({ 'tablet-server.id': 1 }),
    }
    const { config } = loadServerConfig({ env })
    const raw = config.rawValues()
    expect(raw['sluice.security.sasl.plain.user.admin']).toBe('admin-pw')
    expect(raw['sluice.security.ssl.certificate']).toBe('CERT')
    expect(raw['sluice.security.sasl.internal.password']).toBe('from-main')
    expect(raw['tablet-server.id']).toBeUndefined() // not a SLUICE_SECRETS_<NAME> variable: ignored
    const redacted = config.toRecord({ redactSecrets: true })
    expect(redacted['sluice.security.sasl.plain.user.admin']).toBe('******')
    expect(redacted['sluice.security.ssl.key']).toBe('******')
    expect(
      loadError(() =>
        loadServerConfig({ env: { SLUICE_SECRETS_TLS: JSON.stringify({ 'bind.listeners': 'X://h:1' }) } }),
      ),
    ).toMatch(/^SLUICE_SECRETS_TLS: 'bind.listeners' is not a secret option/)
  })
})
