import { Stack, type StackProps } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import type { Construct } from 'constructs'
import type { StageConfig } from '../stages.js'
import { DataBucket } from './data-bucket.js'
import { LakeDatabase } from './lake-database.js'
import { MetadataTable } from './metadata-table.js'

export interface StatefulStackProps extends StackProps {
  readonly stage: StageConfig
}

/**
 * Everything that holds data: the metadata table, the data bucket and the lake database. Kept apart
 * from compute so that compute can be destroyed and redeployed freely; termination protection and
 * RETAIN policies guard it where the stage asks for it.
 */
export class StatefulStack extends Stack {
  readonly table: dynamodb.ITable
  readonly bucket: s3.IBucket
  readonly lakeDatabase: LakeDatabase

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, { terminationProtection: props.stage.retainData, ...props })
    const retain = props.stage.retainData
    this.table = new MetadataTable(this, 'Metadata', { retain }).table
    this.bucket = new DataBucket(this, 'Data', {
      retain,
      noncurrentVersionExpirationDays: props.stage.noncurrentVersionExpirationDays,
      abortIncompleteUploadDays: props.stage.abortIncompleteUploadDays,
    }).bucket
    this.lakeDatabase = new LakeDatabase(this, 'Lake', {
      databaseName: props.stage.lakeDatabaseName,
      bucket: this.bucket,
      retain,
    })
  }
}
