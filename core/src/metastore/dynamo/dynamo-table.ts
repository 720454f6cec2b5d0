import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { FlussError } from '../../errors/index.js'
import { sleep } from '../../util/sleep.js'
import { isTransientAwsError, sdkErrorName, storageException, unexpectedAwsError } from '../aws-errors.js'
import { METADATA_TABLE } from '../table-definition.js'

export interface CreateMetadataTableOptions {
  readonly tableName?: string
  /** How long to wait for the table to become ACTIVE; default 30 s. */
  readonly activeTimeoutMs?: number
  /** Pause between DescribeTable polls; default 100 ms. */
  readonly pollIntervalMs?: number
}

/**
 * Creates the metadata table from METADATA_TABLE for local runs (emulators, LocalStack) and waits
 * until it is ACTIVE. An existing table is accepted as is. Deployed tables come from the CDK.
 */
export async function createMetadataTable(
  client: DynamoDBClient,
  options: CreateMetadataTableOptions = {},
): Promise<string> {
  const tableName = options.tableName ?? METADATA_TABLE.defaultName
  const { partitionKey, sortKey } = METADATA_TABLE
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: partitionKey.name, AttributeType: partitionKey.type },
          { AttributeName: sortKey.name, AttributeType: sortKey.type },
        ],
        KeySchema: [
          { AttributeName: partitionKey.name, KeyType: 'HASH' },
          { AttributeName: sortKey.name, KeyType: 'RANGE' },
        ],
        BillingMode: METADATA_TABLE.billingMode,
      }),
    )
  } catch (e) {
    if (sdkErrorName(e) !== 'ResourceInUseException')
      throw translateTableError(`create table ${tableName}`, e)
  }
  await waitUntilActive(client, tableName, options.activeTimeoutMs ?? 30_000, options.pollIntervalMs ?? 100)
  return tableName
}

async function waitUntilActive(client: DynamoDBClient, tableName: string, timeoutMs: number, pollMs: number) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    let status: string | undefined
    try {
      const out = await client.send(new DescribeTableCommand({ TableName: tableName }))
      status = out.Table?.TableStatus
    } catch (e) {
      throw translateTableError(`describe table ${tableName}`, e)
    }
    if (status === 'ACTIVE') return
    if (Date.now() >= deadline) {
      throw new FlussError('STORAGE_EXCEPTION', `table ${tableName} still ${status} after ${timeoutMs} ms`)
    }
    await sleep(pollMs)
  }
}

function translateTableError(what: string, e: unknown): FlussError {
  return isTransientAwsError(e) ? storageException(what, e) : unexpectedAwsError(what, e)
}
