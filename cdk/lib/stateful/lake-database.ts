import { RemovalPolicy, Stack } from 'aws-cdk-lib'
import * as glue from 'aws-cdk-lib/aws-glue'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import { Construct } from 'constructs'
import { DATA_PREFIXES } from './data-bucket.js'

export interface LakeDatabaseProps {
  /** Glue database name; users type it in Athena queries, so it is chosen, not generated. */
  readonly databaseName: string
  readonly bucket: s3.IBucket
  readonly retain: boolean
}

/** Pinned logical id of the Glue database that registers the stage's Iceberg tables. */
export const LAKE_DATABASE_LOGICAL_ID = 'LakeDatabase'

/**
 * The Glue database in which the tiering function registers Iceberg tables (table_type ICEBERG) and
 * from which Athena reads them. Its location is the bucket's lake prefix.
 */
export class LakeDatabase extends Construct {
  readonly databaseName: string
  readonly catalogArn: string
  readonly databaseArn: string
  /** ARN pattern of every table in the database. */
  readonly tablesArn: string

  constructor(scope: Construct, id: string, props: LakeDatabaseProps) {
    super(scope, id)
    if (!/^[a-z0-9_]{1,255}$/.test(props.databaseName)) {
      throw new Error(`Invalid lake database name '${props.databaseName}': expected [a-z0-9_]{1,255}.`)
    }
    const stack = Stack.of(this)
    const database = new glue.CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: {
        name: props.databaseName,
        description: 'Sluice lake: Iceberg tables tiered from Fluss tables.',
        locationUri: props.bucket.s3UrlForObject(DATA_PREFIXES.lake),
      },
    })
    database.applyRemovalPolicy(props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY)
    database.overrideLogicalId(LAKE_DATABASE_LOGICAL_ID)
    this.databaseName = props.databaseName
    this.catalogArn = stack.formatArn({ service: 'glue', resource: 'catalog' })
    this.databaseArn = stack.formatArn({
      service: 'glue',
      resource: 'database',
      resourceName: props.databaseName,
    })
    this.tablesArn = stack.formatArn({
      service: 'glue',
      resource: 'table',
      resourceName: `${props.databaseName}/*`,
    })
  }
}
