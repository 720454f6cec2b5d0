import { describe, expect, it } from 'vitest'
import { describeLocalAws, parseCommand } from './cli.js'
import type { LocalAws } from './local-aws.js'

describe('parseCommand', () => {
  it('starts with defaults', () => {
    expect(parseCommand([], '/data')).toEqual({
      kind: 'start',
      json: false,
      options: {
        dataDir: '/data',
        s3: 'fs',
        dynamo: true,
        host: undefined,
        dynamoPort: undefined,
        s3Port: undefined,
        tableName: 'sluice-metadata',
        bucket: 'sluice',
        region: undefined,
      },
    })
  })

  it('reads start and bootstrap options', () => {
    const start = parseCommand(
      ['start', '--s3', 's3rver', '--no-dynamo', '--s3-port', '4569', '--json'],
      '/d',
    )
    expect(start).toMatchObject({
      kind: 'start',
      json: true,
      options: { s3: 's3rver', dynamo: false, s3Port: 4569 },
    })
    const boot = parseCommand(['bootstrap', '--endpoint', 'http://localhost:4566', '--table', 't1'], '/d')
    expect(boot).toEqual({
      kind: 'bootstrap',
      endpoints: {
        region: 'us-east-1',
        dynamoEndpoint: 'http://localhost:4566',
        s3Endpoint: 'http://localhost:4566',
        tableName: 't1',
        bucket: 'sluice',
      },
    })
  })

  it('refuses bad arguments', () => {
    expect(() => parseCommand(['--s3', 'minio'], '/d')).toThrow(
      "--s3 must be fs, s3rver or none, got 'minio'",
    )
    expect(() => parseCommand(['--dynamo-port', 'x'], '/d')).toThrow('--dynamo-port must be a port number')
    expect(() => parseCommand(['bootstrap'], '/d')).toThrow('bootstrap needs --endpoint')
    expect(() => parseCommand(['deploy'], '/d')).toThrow("unknown command 'deploy'")
    expect(() => parseCommand(['--nope'], '/d')).toThrow()
  })
})

describe('describeLocalAws', () => {
  it('prints configuration lines and exports', () => {
    const text = describeLocalAws({
      dynamo: { endpoint: 'http://127.0.0.1:1', tableName: 'sluice-metadata' },
      blobStoreUri: 'file:///d/blobs',
      config: { 'sluice.metastore.endpoint': 'http://127.0.0.1:1' },
      env: { AWS_REGION: 'us-east-1' },
    } as unknown as LocalAws)
    expect(text).toContain('sluice.metastore.endpoint: http://127.0.0.1:1')
    expect(text).toContain('export AWS_REGION=us-east-1')
    expect(text).toContain('blobs     file:///d/blobs')
  })
})
