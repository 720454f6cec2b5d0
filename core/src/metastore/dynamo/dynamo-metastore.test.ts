import { createServer } from 'node:net'
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  ProvisionedThroughputExceededException,
  QueryCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { FlussError } from '../../errors/index.js'
import { isMetaStoreConflict } from '../conflict.js'
import { DynamoMetaStore } from './dynamo-metastore.js'
import { toItem } from './item-codec.js'

/** A client whose send() is scripted; records every command input. */
function fakeClient(answer: (command: { constructor: { name: string }; input: unknown }) => unknown) {
  const sent: Array<{ name: string; input: Record<string, unknown> }> = []
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: command.constructor.name, input: command.input })
      return answer(command)
    },
    destroy: () => undefined,
  }
  return { client: client as unknown as DynamoDBClient, sent }
}

const meta = (status: number) => ({ $metadata: { httpStatusCode: status } })

async function failure(p: Promise<unknown>): Promise<FlussError> {
  return p.then(
    () => {
      throw new Error('expected a failure')
    },
    e => e as FlussError,
  )
}

describe('DynamoMetaStore', () => {
  it('writes the documented item with a version condition', async () => {
    const { client, sent } = fakeClient(() => ({}))
    const store = new DynamoMetaStore({ tableName: 'meta', client })
    const version = await store.put(
      'TABLE#1',
      'BUCKET#_#0',
      { leader: 2, isr: [1, 2] },
      {
        version: 4,
        attributes: [{ field: 'coordinatorEpoch', op: '<=', value: 7 }],
      },
    )
    expect(version).toBe(5)
    expect(sent[0]).toEqual({
      name: 'PutItemCommand',
      input: {
        TableName: 'meta',
        Item: {
          pk: { S: 'TABLE#1' },
          sk: { S: 'BUCKET#_#0' },
          version: { N: '5' },
          leader: { N: '2' },
          isr: { L: [{ N: '1' }, { N: '2' }] },
        },
        ConditionExpression: '#version = :version AND #a0 <= :a0',
        ExpressionAttributeNames: { '#version': 'version', '#a0': 'coordinatorEpoch' },
        ExpressionAttributeValues: { ':version': { N: '4' }, ':a0': { N: '7' } },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    })
  })

  it('takes the current item from the failed condition when DynamoDB returns it', async () => {
    const current = toItem('CLUSTER', 'COORDINATOR', 9, { coordinatorEpoch: 3 })
    const { client, sent } = fakeClient(() => {
      throw new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        ...meta(400),
        Item: current,
      })
    })
    const store = new DynamoMetaStore({ tableName: 'meta', client })
    const e = await failure(store.put('CLUSTER', 'COORDINATOR', { coordinatorEpoch: 4 }, { version: 8 }))
    expect(isMetaStoreConflict(e)).toBe(true)
    expect(e.errorName).toBe('METASTORE_CONFLICT')
    expect((e as unknown as { current: unknown }).current).toEqual({
      pk: 'CLUSTER',
      sk: 'COORDINATOR',
      version: 9,
      value: { coordinatorEpoch: 3 },
    })
    expect(e.message).toContain('expected version 8, found version 9')
    expect(sent.map(s => s.name)).toEqual(['PutItemCommand'])
  })

  it('translates SDK failures into typed errors with a compact cause', async () => {
    const cases: Array<[unknown, string]> = [
      [
        new ProvisionedThroughputExceededException({ message: 'slow down', ...meta(400) }),
        'STORAGE_EXCEPTION',
      ],
      [
        Object.assign(new Error('We encountered an internal error'), {
          name: 'InternalServerError',
          ...meta(500),
        }),
        'STORAGE_EXCEPTION',
      ],
      [Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'STORAGE_EXCEPTION'],
      [
        new ResourceNotFoundException({ message: 'Requested resource not found', ...meta(400) }),
        'STORAGE_EXCEPTION',
      ],
      [
        Object.assign(new Error('Item size has exceeded the maximum'), {
          name: 'ValidationException',
          ...meta(400),
        }),
        'INVALID_REQUEST',
      ],
      [
        Object.assign(new Error('not authorized'), { name: 'AccessDeniedException', ...meta(400) }),
        'UNKNOWN_SERVER_ERROR',
      ],
    ]
    for (const [thrown, name] of cases) {
      const { client } = fakeClient(() => {
        throw thrown
      })
      const e = await failure(new DynamoMetaStore({ tableName: 'meta', client }).get('a', 'b'))
      expect(e).toBeInstanceOf(FlussError)
      expect(e.errorName).toBe(name)
      expect(Object.keys(e.cause as object)).not.toContain('$response')
    }
  })

  it('asks for one item more than the page and resumes after the last item returned', async () => {
    const items = [1, 2, 3].map(i => toItem('P', `S#${i}`, 1, { i }))
    const { client, sent } = fakeClient(command => {
      if (!(command instanceof QueryCommand)) throw new Error('unexpected')
      return { Items: items }
    })
    const store = new DynamoMetaStore({ tableName: 'meta', client })
    const page = await store.query('P', { skPrefix: 'S#', limit: 2 })
    expect(page.items.map(i => i.sk)).toEqual(['S#1', 'S#2'])
    expect(sent[0].input.Limit).toBe(3)
    await store.query('P', { skPrefix: 'S#', limit: 2, cursor: page.cursor })
    expect(sent[1].input.ExclusiveStartKey).toEqual({ pk: { S: 'P' }, sk: { S: 'S#2' } })
  })

  it('keeps paginating when DynamoDB stops a page early (1 MB limit)', async () => {
    const { client } = fakeClient(() => ({
      Items: [toItem('P', 'S#1', 1, {})],
      LastEvaluatedKey: { pk: { S: 'P' }, sk: { S: 'S#1' } },
    }))
    const page = await new DynamoMetaStore({ tableName: 'meta', client }).query('P', { limit: 10 })
    expect(page.items).toHaveLength(1)
    expect(page.cursor).toBeDefined()
  })

  it('reports an unreachable endpoint as a retriable STORAGE_EXCEPTION', async () => {
    const port = await new Promise<number>(resolve => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number }
        s.close(() => resolve(port))
      })
    })
    const store = new DynamoMetaStore({
      tableName: 'meta',
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
      maxAttempts: 1,
    })
    const e = await failure(store.get('a', 'b'))
    await store.close()
    expect(e.errorName).toBe('STORAGE_EXCEPTION')
    expect(e.retriable).toBe(true)
  })
})
