import { Duration } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import * as scheduler from 'aws-cdk-lib/aws-scheduler'
import * as targets from 'aws-cdk-lib/aws-scheduler-targets'
import { Construct } from 'constructs'
import { grantMetadataAccess, METADATA_ACCESS } from '../metadata-access.js'
import { DATA_PREFIXES } from '../stateful/data-bucket.js'
import type { LakeDatabase } from '../stateful/lake-database.js'
import { SluiceFunction, type SluiceFunctionProps } from './bundling.js'

export const TIERING_ENTRY = 'functions/tiering/src/handler.ts'

/** Glue actions of a tiering round: read the database, create and commit Iceberg tables. */
export const TIERING_GLUE_ACTIONS = [
  'glue:GetDatabase',
  'glue:GetTable',
  'glue:GetTables',
  'glue:CreateTable',
  'glue:UpdateTable',
] as const

export interface TieringFunctionProps extends Omit<SluiceFunctionProps, 'entry' | 'description'> {
  readonly table: dynamodb.ITable
  readonly bucket: s3.IBucket
  readonly lakeDatabase: LakeDatabase
  readonly scheduleRateMinutes: number
}

/**
 * The tiering function and its schedule. Each scheduled invocation runs one tiering round over the due
 * tables; reserved concurrency 1 keeps rounds from overlapping, and a missed tick is simply retried by
 * the next one.
 */
export class TieringFunction extends Construct {
  readonly function: nodejs.NodejsFunction
  readonly schedule: scheduler.Schedule

  constructor(scope: Construct, id: string, props: TieringFunctionProps) {
    super(scope, id)
    this.function = new SluiceFunction(this, 'Handler', {
      ...props,
      entry: TIERING_ENTRY,
      description: 'Sluice tiering round: tiered log segments to Iceberg tables',
      reservedConcurrentExecutions: 1,
    }).function
    grantMetadataAccess(this.function, props.table, METADATA_ACCESS.tiering)
    props.bucket.grantRead(this.function, `${DATA_PREFIXES.remoteLog}*`)
    props.bucket.grantReadWrite(this.function, `${DATA_PREFIXES.lake}*`)
    this.function.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...TIERING_GLUE_ACTIONS],
        resources: [
          props.lakeDatabase.catalogArn,
          props.lakeDatabase.databaseArn,
          props.lakeDatabase.tablesArn,
        ],
      }),
    )
    this.schedule = new scheduler.Schedule(this, 'Schedule', {
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(props.scheduleRateMinutes)),
      description: 'Runs a Sluice tiering round',
      target: new targets.LambdaInvoke(this.function, {
        retryAttempts: 0,
        maxEventAge: Duration.seconds(60),
      }),
    })
  }
}
