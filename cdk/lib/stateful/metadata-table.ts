import { METADATA_TABLE } from '@sluice/core/metastore'
import { RemovalPolicy } from 'aws-cdk-lib'
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import { Construct } from 'constructs'

export interface MetadataTableProps {
  /** Keep the table (and forbid its deletion) when the stack is deleted or the resource replaced. */
  readonly retain: boolean
}

/** Pinned logical id of the table: changing it would replace the table and lose the cluster metadata. */
export const METADATA_TABLE_LOGICAL_ID = 'MetadataTable'

const ATTRIBUTE_TYPES: Record<'S' | 'N' | 'B', dynamodb.AttributeType> = {
  S: dynamodb.AttributeType.STRING,
  N: dynamodb.AttributeType.NUMBER,
  B: dynamodb.AttributeType.BINARY,
}

/**
 * The DynamoDB table of the control plane, built from core's METADATA_TABLE definition so that the
 * deployed table, the emulator table and the adapter agree on keys and billing.
 */
export class MetadataTable extends Construct {
  readonly table: dynamodb.Table

  constructor(scope: Construct, id: string, props: MetadataTableProps) {
    super(scope, id)
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: {
        name: METADATA_TABLE.partitionKey.name,
        type: ATTRIBUTE_TYPES[METADATA_TABLE.partitionKey.type],
      },
      sortKey: { name: METADATA_TABLE.sortKey.name, type: ATTRIBUTE_TYPES[METADATA_TABLE.sortKey.type] },
      billingMode:
        METADATA_TABLE.billingMode === 'PAY_PER_REQUEST'
          ? dynamodb.BillingMode.PAY_PER_REQUEST
          : dynamodb.BillingMode.PROVISIONED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: METADATA_TABLE.pointInTimeRecovery },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: props.retain,
      removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    })
    const cfnTable = this.table.node.defaultChild as dynamodb.CfnTable
    cfnTable.overrideLogicalId(METADATA_TABLE_LOGICAL_ID)
  }
}
