import { Stack } from 'aws-cdk-lib'
import { Match, Template } from 'aws-cdk-lib/assertions'
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as ec2 from 'aws-cdk-lib/aws-ec2'
import * as logs from 'aws-cdk-lib/aws-logs'
import * as s3 from 'aws-cdk-lib/aws-s3'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { GatewayApi } from '../lib/functions/gateway-api.js'
import { LakeDatabase } from '../lib/stateful/lake-database.js'
import { REPO_ROOT, SYNTH_TIMEOUT_MS, testApp } from './synth.js'

let dispose: () => void
let template: Template

beforeAll(() => {
  const test = testApp()
  dispose = test.dispose
  const stack = new Stack(test.app, 'Gateway')
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 0 })
  const bucket = s3.Bucket.fromBucketName(stack, 'Bucket', 'data-bucket')
  new GatewayApi(stack, 'Gateway', {
    repoRoot: REPO_ROOT,
    config: { memoryMiB: 256, timeoutSeconds: 10 },
    cpuArchitecture: 'ARM64',
    environment: {},
    vpc,
    subnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
    securityGroup: new ec2.SecurityGroup(stack, 'Sg', { vpc }),
    logRetention: logs.RetentionDays.ONE_DAY,
    auth: { kind: 'jwt', issuerUrl: 'https://issuer.example/', audience: ['sluice'] },
    throttleRatePerSecond: 5,
    throttleBurst: 10,
    table: dynamodb.Table.fromTableName(stack, 'Table', 'metadata-table'),
    bucket,
    lakeDatabase: new LakeDatabase(stack, 'Lake', { databaseName: 'lake', bucket, retain: false }),
  })
  template = Template.fromStack(stack)
}, SYNTH_TIMEOUT_MS)

afterAll(() => dispose())

describe('gateway with JWT authorization', () => {
  it('validates tokens of the configured issuer and audience', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: 'https://issuer.example/', Audience: ['sluice'] },
      IdentitySource: ['$request.header.Authorization'],
    })
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'JWT',
      AuthorizerId: Match.anyValue(),
    })
  })

  it('runs on Node.js 22 on the requested architecture', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 256,
    })
  })
})
