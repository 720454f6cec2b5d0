import { Configuration, optionByKey } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import {
  baseFlussConf,
  coordinatorFlussConf,
  type FlussConf,
  functionFlussConf,
  tabletServerFlussConf,
} from '../lib/fluss-conf.js'
import { STAGES, type StageConfig, stageByName } from '../lib/stages.js'

const RESOURCES = { metadataTableName: 'metadata-table', bucketName: 'data-bucket', region: 'eu-west-1' }

function confsOf(stage: StageConfig): Record<string, FlussConf> {
  const base = baseFlussConf(stage, RESOURCES)
  return {
    coordinator: coordinatorFlussConf(base, 9123),
    tablet: tabletServerFlussConf(base, {
      serverId: 2,
      advertisedHost: 'tablet-2.x.internal',
      dataDir: '/data',
      port: 9123,
    }),
    function: functionFlussConf(base, 'nlb.example:9123'),
  }
}

describe.each(Object.values(STAGES))('FLUSS_CONF of stage $name', stage => {
  it.each(Object.entries(confsOf(stage)))(
    '%s: every key is a registered server-side option and parses',
    (_, conf) => {
      for (const key of Object.keys(conf)) {
        const option = optionByKey(key)
        expect(option, key).toBeDefined()
        expect(option?.scope, key).not.toBe('table')
      }
      expect(Configuration.load(conf, { source: 'FLUSS_CONF' }).warnings).toEqual([])
    },
  )

  it('names the stack resources', () => {
    expect(confsOf(stage).tablet).toMatchObject({
      'sluice.metastore.table': 'metadata-table',
      'sluice.metastore.region': 'eu-west-1',
      'sluice.aws.region': 'eu-west-1',
      'sluice.blobstore.uri': 's3://data-bucket',
      'tablet-server.id': '2',
      'advertised.listeners': 'FLUSS://tablet-2.x.internal:9123',
    })
  })

  it('keeps the replication factor within the number of tablet servers', () => {
    const factor = Number(confsOf(stage).coordinator['default.replication.factor'])
    expect(factor).toBeGreaterThan(0)
    expect(factor).toBeLessThanOrEqual(stage.tabletServers.count)
  })
})

describe('SASL stages', () => {
  it('run a SASL CLIENT listener on 9123 and a SASL INTERNAL one on 9124, with ACLs on', () => {
    const confs = confsOf({ ...STAGES.dev, security: { sasl: true } })
    expect(confs.tablet).toMatchObject({
      'bind.listeners': 'CLIENT://0.0.0.0:9123,INTERNAL://0.0.0.0:9124',
      'advertised.listeners': 'CLIENT://tablet-2.x.internal:9123,INTERNAL://tablet-2.x.internal:9124',
      'internal.listener.name': 'INTERNAL',
      'security.protocol.map': 'CLIENT:SASL,INTERNAL:SASL',
      'authorizer.enabled': 'true',
    })
    expect(confs.coordinator['bind.listeners']).toBe('CLIENT://0.0.0.0:9123,INTERNAL://0.0.0.0:9124')
    // Credentials never travel in FLUSS_CONF: they come from the server secrets.
    expect(JSON.stringify(confs)).not.toMatch(/jaas|password/)
    expect(confsOf(STAGES.dev).tablet['bind.listeners']).toBe('FLUSS://0.0.0.0:9123')
  })
})

describe('stage options', () => {
  it('cannot override the resource names', () => {
    const stage = { ...STAGES.dev, flussOptions: { 'sluice.metastore.table': 'other' } }
    expect(baseFlussConf(stage, RESOURCES)['sluice.metastore.table']).toBe('metadata-table')
  })

  it('a bad value in a stage fails to load with INVALID_CONFIG_EXCEPTION', () => {
    const stage = { ...STAGES.dev, flussOptions: { 'log.replica.max-lag-time': 'soon' } }
    let error: unknown
    try {
      Configuration.load(baseFlussConf(stage, RESOURCES))
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(FlussError)
    expect((error as FlussError).errorName).toBe('INVALID_CONFIG_EXCEPTION')
    expect((error as FlussError).message).toContain('log.replica.max-lag-time')
  })
})

describe('stageByName', () => {
  it('finds a configured stage', () => {
    expect(stageByName('prod')).toBe(STAGES.prod)
  })

  it('names the known stages when the stage is unknown', () => {
    expect(() => stageByName('staging')).toThrow("Unknown stage 'staging': expected one of dev, prod.")
  })
})
