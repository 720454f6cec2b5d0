import * as apigw from 'aws-cdk-lib/aws-apigatewayv2'
import * as authorizers from 'aws-cdk-lib/aws-apigatewayv2-authorizers'
import * as integrations from 'aws-cdk-lib/aws-apigatewayv2-integrations'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import { Construct } from 'constructs'
import { grantMetadataAccess, METADATA_ACCESS } from '../metadata-access.js'
import type { GatewayAuth } from '../stages.js'
import { DATA_PREFIXES } from '../stateful/data-bucket.js'
import type { LakeDatabase } from '../stateful/lake-database.js'
import { SluiceFunction, type SluiceFunctionProps } from './bundling.js'

export const GATEWAY_ENTRY = 'functions/gateway/src/handler.ts'

/** Glue actions the gateway needs to find lake snapshots for union reads. */
export const GATEWAY_GLUE_ACTIONS = ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables'] as const

export interface GatewayApiProps extends Omit<SluiceFunctionProps, 'entry' | 'description'> {
  readonly auth: GatewayAuth
  readonly throttleRatePerSecond: number
  readonly throttleBurst: number
  readonly table: dynamodb.ITable
  readonly bucket: s3.IBucket
  readonly lakeDatabase: LakeDatabase
}

/**
 * The HTTP gateway: one Lambda function behind an HTTP API whose every route requires authorization —
 * SigV4 (IAM) by default, or JWTs from the stage's issuer. The function reads metadata and cold data;
 * writes and DDL go through the cluster's RPC.
 */
export class GatewayApi extends Construct {
  readonly function: nodejs.NodejsFunction
  readonly api: apigw.HttpApi
  readonly stage: apigw.HttpStage

  constructor(scope: Construct, id: string, props: GatewayApiProps) {
    super(scope, id)
    this.function = new SluiceFunction(this, 'Handler', {
      ...props,
      entry: GATEWAY_ENTRY,
      description: 'Sluice HTTP gateway',
    }).function
    grantMetadataAccess(this.function, props.table, METADATA_ACCESS.gateway)
    props.bucket.grantRead(this.function, `${DATA_PREFIXES.remoteLog}*`)
    props.bucket.grantRead(this.function, `${DATA_PREFIXES.lake}*`)
    this.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...GATEWAY_GLUE_ACTIONS],
        resources: [
          props.lakeDatabase.catalogArn,
          props.lakeDatabase.databaseArn,
          props.lakeDatabase.tablesArn,
        ],
      }),
    )
    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'Sluice HTTP gateway',
      createDefaultStage: false,
      defaultIntegration: new integrations.HttpLambdaIntegration('Gateway', this.function),
      defaultAuthorizer: gatewayAuthorizer(props.auth),
    })
    this.stage = new apigw.HttpStage(this, 'Stage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttleRatePerSecond, burstLimit: props.throttleBurst },
    })
  }
}

function gatewayAuthorizer(auth: GatewayAuth): apigw.IHttpRouteAuthorizer {
  switch (auth.kind) {
    case 'iam':
      return new authorizers.HttpIamAuthorizer()
    case 'jwt':
      return new authorizers.HttpJwtAuthorizer('GatewayJwt', auth.issuerUrl, {
        jwtAudience: [...auth.audience],
      })
  }
}
