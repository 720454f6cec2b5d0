import {
  type AttributeValue,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb'
import { assert, FlussError } from '../../errors/index.js'
import {
  awsError,
  isTransientAwsError,
  sdkErrorName,
  storageException,
  unexpectedAwsError,
} from '../aws-errors.js'
import type { AwsClientOptions } from '../aws-options.js'
import { metaStoreConflict } from '../conflict.js'
import {
  nextVersion,
  validateCondition,
  validateKey,
  validateQuery,
  validateValue,
} from '../item-validation.js'
import type {
  GetOptions,
  ItemValue,
  MetaStore,
  QueryOptions,
  QueryPage,
  VersionedItem,
  WriteCondition,
} from '../metastore.js'
import { decodeCursor, encodeCursor } from '../query-cursor.js'
import { conditionExpression, keyConditionExpression } from './dynamo-expressions.js'
import { fromItem, toItem } from './item-codec.js'

export interface DynamoMetaStoreOptions extends AwsClientOptions {
  readonly tableName: string
  /** A client to use instead of building one; the caller keeps ownership (close() leaves it open). */
  readonly client?: DynamoDBClient
}

export function createDynamoClient(o: AwsClientOptions): DynamoDBClient {
  return new DynamoDBClient({
    ...(o.region === undefined ? {} : { region: o.region }),
    ...(o.endpoint === undefined ? {} : { endpoint: o.endpoint }),
    ...(o.credentials === undefined ? {} : { credentials: o.credentials }),
    maxAttempts: o.maxAttempts ?? 3,
  })
}

/** MetaStore on a DynamoDB table shaped by METADATA_TABLE (see item-codec.ts for the encoding). */
export class DynamoMetaStore implements MetaStore {
  readonly #client: DynamoDBClient
  readonly #ownsClient: boolean
  readonly #table: string
  #closed = false

  constructor(options: DynamoMetaStoreOptions) {
    this.#table = options.tableName
    this.#ownsClient = options.client === undefined
    this.#client = options.client ?? createDynamoClient(options)
  }

  async get(pk: string, sk: string, options: GetOptions = {}): Promise<VersionedItem | undefined> {
    this.#checkOpen()
    validateKey(pk, sk)
    const out = await this.#send(`get ${pk}/${sk}`, () =>
      this.#client.send(
        new GetItemCommand({
          TableName: this.#table,
          Key: key(pk, sk),
          ConsistentRead: options.consistent ?? true,
        }),
      ),
    )
    return out.Item === undefined ? undefined : fromItem(out.Item)
  }

  async query(pk: string, options: QueryOptions = {}): Promise<QueryPage> {
    this.#checkOpen()
    const { prefix, limit, reverse } = validateQuery(pk, options)
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor, pk, prefix, reverse)
    const kc = keyConditionExpression(pk, prefix)
    const out = await this.#send(`query ${pk} prefix '${prefix}'`, () =>
      this.#client.send(
        new QueryCommand({
          TableName: this.#table,
          KeyConditionExpression: kc.expression,
          ExpressionAttributeNames: kc.names,
          ExpressionAttributeValues: kc.values,
          ExclusiveStartKey: after === undefined ? undefined : key(pk, after),
          ScanIndexForward: !reverse,
          ConsistentRead: options.consistent ?? true,
          // One more than asked: tells whether another page exists without a second round trip.
          Limit: limit + 1,
        }),
      ),
    )
    const all = (out.Items ?? []).map(fromItem)
    if (all.length > limit) {
      const items = all.slice(0, limit)
      return { items, cursor: encodeCursor({ pk, prefix, reverse, lastSk: items[items.length - 1].sk }) }
    }
    const lastSk = out.LastEvaluatedKey?.sk?.S
    return lastSk === undefined
      ? { items: all }
      : { items: all, cursor: encodeCursor({ pk, prefix, reverse, lastSk }) }
  }

  async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    this.#checkOpen()
    validateKey(pk, sk)
    validateValue(value)
    validateCondition(condition)
    const version = nextVersion(condition)
    const cond = conditionExpression(condition)
    const command = new PutItemCommand({
      TableName: this.#table,
      Item: toItem(pk, sk, version, value),
      ConditionExpression: cond.expression,
      ExpressionAttributeNames: cond.names,
      ExpressionAttributeValues: cond.values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    })
    await this.#conditional(pk, sk, condition, `put ${pk}/${sk}`, () => this.#client.send(command))
    return version
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<void> {
    this.#checkOpen()
    validateKey(pk, sk)
    validateCondition(condition)
    const cond = conditionExpression(condition)
    const command = new DeleteItemCommand({
      TableName: this.#table,
      Key: key(pk, sk),
      ConditionExpression: cond.expression,
      ExpressionAttributeNames: cond.names,
      ExpressionAttributeValues: cond.values,
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    })
    await this.#conditional(pk, sk, condition, `delete ${pk}/${sk}`, () => this.#client.send(command))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#ownsClient) this.#client.destroy()
  }

  /** Runs a conditional write; a lost condition becomes METASTORE_CONFLICT with the current item. */
  async #conditional(
    pk: string,
    sk: string,
    condition: WriteCondition,
    what: string,
    call: () => Promise<unknown>,
  ) {
    try {
      await call()
    } catch (e) {
      if (sdkErrorName(e) !== 'ConditionalCheckFailedException') throw translate(what, e, this.#table)
      // Real DynamoDB returns the item with the failure; emulators may not, so read it instead.
      const returned = (e as { Item?: Record<string, AttributeValue> }).Item
      const current =
        returned === undefined ? await this.get(pk, sk, { consistent: true }) : fromItem(returned)
      throw metaStoreConflict(pk, sk, condition, current)
    }
  }

  async #send<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (e) {
      throw translate(what, e, this.#table)
    }
  }

  #checkOpen(): void {
    assert(!this.#closed, 'DynamoMetaStore used after close()')
  }
}

function key(pk: string, sk: string): Record<string, AttributeValue> {
  return { pk: { S: pk }, sk: { S: sk } }
}

function translate(what: string, e: unknown, table: string): FlussError {
  if (e instanceof FlussError) return e
  if (isTransientAwsError(e)) return storageException(`metadata ${what}`, e)
  const name = sdkErrorName(e)
  if (name === 'ValidationException') return awsError('INVALID_REQUEST', `metadata ${what} refused`, e)
  if (name === 'ResourceNotFoundException')
    return awsError('STORAGE_EXCEPTION', `metadata ${what}: table '${table}' not found`, e)
  return unexpectedAwsError(`metadata ${what}`, e)
}
