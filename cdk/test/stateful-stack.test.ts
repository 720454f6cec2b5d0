import { Stack } from 'aws-cdk-lib'
import { Match, Template } from 'aws-cdk-lib/assertions'
import * as s3 from 'aws-cdk-lib/aws-s3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STAGES } from '../lib/stages.js'
import { DATA_BUCKET_LOGICAL_ID } from '../lib/stateful/data-bucket.js'
import { LAKE_DATABASE_LOGICAL_ID, LakeDatabase } from '../lib/stateful/lake-database.js'
import { METADATA_TABLE_LOGICAL_ID } from '../lib/stateful/metadata-table.js'
import { StatefulStack } from '../lib/stateful/stateful-stack.js'
import { SYNTH_TIMEOUT_MS, testApp } from './synth.js'

let dispose: () => void
let dev: Template
let prod: Template
let prodStack: StatefulStack

beforeAll(() => {
  const test = testApp()
  dispose = test.dispose
  const devStack = new StatefulStack(test.app, 'DevStateful', { stage: STAGES.dev })
  prodStack = new StatefulStack(test.app, 'ProdStateful', { stage: STAGES.prod })
  dev = Template.fromStack(devStack)
  prod = Template.fromStack(prodStack)
}, SYNTH_TIMEOUT_MS)

afterAll(() => dispose())

describe('metadata table', () => {
  it('keeps its pinned logical id and the key schema of METADATA_TABLE', () => {
    const table = dev.toJSON().Resources[METADATA_TABLE_LOGICAL_ID]
    expect(table.Type).toBe('AWS::DynamoDB::Table')
    expect(table.Properties.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ])
    expect(table.Properties.AttributeDefinitions).toEqual([
      { AttributeName: 'pk', AttributeType: 'S' },
      { AttributeName: 'sk', AttributeType: 'S' },
    ])
  })

  it('bills per request with point-in-time recovery and encryption', () => {
    dev.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    })
  })

  it('is retained and deletion-protected in prod, deleted with the dev stack', () => {
    expect(prod.toJSON().Resources[METADATA_TABLE_LOGICAL_ID]).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { DeletionProtectionEnabled: true },
    })
    expect(dev.toJSON().Resources[METADATA_TABLE_LOGICAL_ID]).toMatchObject({
      DeletionPolicy: 'Delete',
      Properties: { DeletionProtectionEnabled: false },
    })
  })
})

describe('data bucket', () => {
  it('keeps its pinned logical id and is private, encrypted and versioned', () => {
    const bucket = prod.toJSON().Resources[DATA_BUCKET_LOGICAL_ID]
    expect(bucket.Type).toBe('AWS::S3::Bucket')
    expect(bucket.DeletionPolicy).toBe('Retain')
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      VersioningConfiguration: { Status: 'Enabled' },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    })
  })

  it('aborts incomplete uploads and expires noncurrent versions per stage', () => {
    prod.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Id: 'abort-incomplete-multipart-uploads',
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: STAGES.prod.abortIncompleteUploadDays },
            Status: 'Enabled',
          }),
          Match.objectLike({
            Id: 'expire-noncurrent-versions',
            NoncurrentVersionExpiration: { NoncurrentDays: STAGES.prod.noncurrentVersionExpirationDays },
            Status: 'Enabled',
          }),
        ]),
      },
    })
  })

  it('refuses plain HTTP and TLS below 1.2', () => {
    const statements = Object.values(prod.findResources('AWS::S3::BucketPolicy')).flatMap(
      r => r.Properties.PolicyDocument.Statement,
    )
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        expect.objectContaining({ Effect: 'Deny', Condition: { NumericLessThan: { 's3:TlsVersion': 1.2 } } }),
      ]),
    )
  })

  it('is emptied and deleted with the dev stack only', () => {
    expect(dev.toJSON().Resources[DATA_BUCKET_LOGICAL_ID].DeletionPolicy).toBe('Delete')
    dev.resourceCountIs('Custom::S3AutoDeleteObjects', 1)
    prod.resourceCountIs('Custom::S3AutoDeleteObjects', 0)
  })
})

describe('lake database', () => {
  it('keeps its pinned logical id and points at the lake prefix', () => {
    const database = prod.toJSON().Resources[LAKE_DATABASE_LOGICAL_ID]
    expect(database.Type).toBe('AWS::Glue::Database')
    expect(database.DeletionPolicy).toBe('Retain')
    expect(database.Properties.DatabaseInput.Name).toBe('sluice_prod')
    expect(database.Properties.DatabaseInput.LocationUri).toEqual({
      'Fn::Join': ['', ['s3://', { Ref: DATA_BUCKET_LOGICAL_ID }, '/lake/']],
    })
  })

  it('rejects a name Athena cannot use', () => {
    const test = testApp()
    try {
      const stack = new Stack(test.app, 'Names', {})
      const bucket = s3.Bucket.fromBucketName(stack, 'Bucket', 'some-bucket')
      expect(
        () => new LakeDatabase(stack, 'Bad', { databaseName: 'Sluice-Dev', bucket, retain: false }),
      ).toThrow(/Invalid lake database name 'Sluice-Dev'/)
    } finally {
      test.dispose()
    }
  })
})

describe('stateful stack', () => {
  it('has termination protection where data is retained', () => {
    expect(prodStack.terminationProtection).toBe(true)
  })

  it('holds exactly the three stateful resources', () => {
    for (const template of [dev, prod]) {
      template.resourceCountIs('AWS::DynamoDB::Table', 1)
      template.resourceCountIs('AWS::S3::Bucket', 1)
      template.resourceCountIs('AWS::Glue::Database', 1)
    }
  })
})
