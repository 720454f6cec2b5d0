import { PARTITION_KEY_FAMILIES, type PartitionKeyFamily } from '@sluice/core/metastore'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'

/** Which item families of the metadata table a role reads and writes. */
export interface MetadataAccess {
  readonly read: readonly PartitionKeyFamily[]
  readonly write: readonly PartitionKeyFamily[]
}

/**
 * Least privilege on the metadata table, per process (see core/src/metastore/keys.ts for what
 * each family holds): the coordinator owns the catalog and the ACLs; tablet servers write their
 * leases, writer ids and per-table state (ISR, snapshots, remote logs) and read the rest; the
 * tiering function writes lake progress; the gateway only reads (the catalog, and ACLs for its
 * authorizer).
 */
export const METADATA_ACCESS = {
  coordinator: {
    read: ['cluster', 'catalog', 'databases', 'tables', 'acls'],
    write: ['cluster', 'catalog', 'databases', 'tables', 'acls'],
  },
  tabletServer: { read: ['cluster', 'catalog', 'databases', 'tables', 'acls'], write: ['cluster', 'tables'] },
  tiering: {
    read: ['cluster', 'catalog', 'databases', 'tables', 'lakeCatalog'],
    write: ['tables', 'lakeCatalog'],
  },
  gateway: { read: ['cluster', 'catalog', 'databases', 'tables', 'acls'], write: [] },
} as const satisfies Record<string, MetadataAccess>

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem']
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']

function leadingKeys(families: readonly PartitionKeyFamily[]) {
  return {
    'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': families.map(f => PARTITION_KEY_FAMILIES[f]) },
  }
}

/** Grants `grantee` the item actions of `access` on `table`, each limited by a leading-keys condition. */
export function grantMetadataAccess(
  grantee: iam.IGrantable,
  table: dynamodb.ITable,
  access: MetadataAccess,
): void {
  const add = (actions: string[], families: readonly PartitionKeyFamily[]) => {
    if (families.length === 0) return
    iam.Grant.addToPrincipal({
      grantee,
      actions,
      resourceArns: [table.tableArn],
      conditions: leadingKeys(families),
    })
  }
  add(READ_ACTIONS, access.read)
  add(WRITE_ACTIONS, access.write)
}
