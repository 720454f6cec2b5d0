import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib'
import * as athena from 'aws-cdk-lib/aws-athena'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as s3 from 'aws-cdk-lib/aws-s3'
import { Construct } from 'constructs'
import { DATA_PREFIXES } from '../stateful/data-bucket.js'
import type { LakeDatabase } from '../stateful/lake-database.js'

/** Athena actions a reader needs to run and read queries in the workgroup. */
export const LAKE_QUERY_ATHENA_ACTIONS = [
  'athena:StartQueryExecution',
  'athena:StopQueryExecution',
  'athena:GetQueryExecution',
  'athena:GetQueryResults',
  'athena:GetQueryResultsStream',
  'athena:ListQueryExecutions',
  'athena:GetWorkGroup',
] as const

/** Glue actions a reader needs to resolve Iceberg tables. */
export const LAKE_QUERY_GLUE_ACTIONS = [
  'glue:GetDatabase',
  'glue:GetDatabases',
  'glue:GetTable',
  'glue:GetTables',
  'glue:GetPartitions',
] as const

export interface LakeQueryProps {
  /** Name of the Athena workgroup users pick in the console or pass as `--work-group`. */
  readonly workGroupName: string
  readonly bucket: s3.IBucket
  readonly lakeDatabase: LakeDatabase
  readonly resultsExpirationDays: number
  readonly bytesScannedCutoffPerQuery: number
}

/**
 * Athena access to the lake: a workgroup (engine v3, results in its own bucket, a per-query scan limit)
 * and a reader role that people or tools assume to query. Only this role gets Athena permissions; the
 * servers and functions never query Athena.
 */
export class LakeQuery extends Construct {
  readonly workGroup: athena.CfnWorkGroup
  readonly resultsBucket: s3.Bucket
  readonly readerRole: iam.Role

  constructor(scope: Construct, id: string, props: LakeQueryProps) {
    super(scope, id)
    this.resultsBucket = new s3.Bucket(this, 'Results', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      lifecycleRules: [
        { id: 'expire-results', expiration: Duration.days(props.resultsExpirationDays) },
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    })
    this.workGroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: props.workGroupName,
      description: 'Queries over the Sluice lake (Iceberg tables in Glue)',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: props.bytesScannedCutoffPerQuery,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: this.resultsBucket.s3UrlForObject('results/'),
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    })
    this.readerRole = this.createReaderRole(props)
  }

  private createReaderRole(props: LakeQueryProps): iam.Role {
    const role = new iam.Role(this, 'ReaderRole', {
      assumedBy: new iam.AccountRootPrincipal(),
      description: 'Query the Sluice lake with Athena',
      maxSessionDuration: Duration.hours(4),
    })
    const workGroupArn = Stack.of(this).formatArn({
      service: 'athena',
      resource: 'workgroup',
      resourceName: props.workGroupName,
    })
    role.addToPolicy(
      new iam.PolicyStatement({ actions: [...LAKE_QUERY_ATHENA_ACTIONS], resources: [workGroupArn] }),
    )
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: [...LAKE_QUERY_GLUE_ACTIONS],
        resources: [
          props.lakeDatabase.catalogArn,
          props.lakeDatabase.databaseArn,
          props.lakeDatabase.tablesArn,
        ],
      }),
    )
    props.bucket.grantRead(role, `${DATA_PREFIXES.lake}*`)
    this.resultsBucket.grantReadWrite(role)
    return role
  }
}
