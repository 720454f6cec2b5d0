/**
 * The DynamoDB metadata table, as data. The CDK stack, the local emulator bootstrap and the
 * DynamoDB adapter all build the table from this one definition, so they cannot drift.
 */
export const METADATA_TABLE = {
  /** Default physical name for local runs; the CDK lets CloudFormation name the deployed table. */
  defaultName: 'sluice-metadata',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  /** Every item carries this attribute; conditional writes compare it. */
  versionAttribute: 'version',
  billingMode: 'PAY_PER_REQUEST',
  pointInTimeRecovery: true,
} as const

export type MetadataTableDefinition = typeof METADATA_TABLE
