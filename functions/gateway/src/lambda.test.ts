import { DataTypes, notNull, type RowType } from '@sluice/core'
import { ArrowBatchWriter, writeArrowStream } from '@sluice/core/arrow'
import { Configuration } from '@sluice/core/config'
import { describe, expect, it } from 'vitest'
import { GATEWAY_API_VERSION } from './app.js'
import type { BackendContext } from './backend/gateway-backend.js'
import { type APIGatewayProxyEventV2, createLambdaApp, lambdaHandler } from './lambda.js'
import { buildOpenApiDocument } from './openapi/document.js'
import { event } from './testing/lambda-event.js'
import { MemoryGatewayBackend } from './testing/memory-backend.js'
import { responseProblem } from './testing/openapi-check.js'
import { type Principal, SILENT_LOGGER } from './types.js'

const json = (value: unknown) => ({
  body: JSON.stringify(value),
  headers: { 'content-type': 'application/json' },
})

/** A memory backend that remembers the principal of each call. */
class RecordingBackend extends MemoryGatewayBackend {
  principals: Principal[] = []
  override async listDatabases(ctx: BackendContext) {
    this.principals.push(ctx.principal)
    return super.listDatabases(ctx)
  }
}

function setup(config: Record<string, unknown> = {}) {
  const backend = new RecordingBackend()
  let boots = 0
  const app = createLambdaApp({ backend, config: Configuration.load(config), logger: SILENT_LOGGER })
  const handler = lambdaHandler(async () => {
    boots++
    return app
  })
  const doc = buildOpenApiDocument(app.registry, GATEWAY_API_VERSION)
  const invoke = async (e: APIGatewayProxyEventV2) => {
    const result = await handler(e)
    const body = result.body === '' ? undefined : JSON.parse(result.body)
    const problem = responseProblem(doc, e.requestContext.http.method, e.rawPath, result.statusCode, body)
    if (problem !== undefined) throw new Error(problem)
    return { ...result, json: body, headers: result.headers as Record<string, string> }
  }
  return { backend, invoke, boots: () => boots }
}

describe('Lambda handler', () => {
  it('serves the app for API Gateway v2 events, booting once per container', async () => {
    const { invoke, boots } = setup()
    const health = await invoke(event('GET', '/health'))
    expect(health.statusCode).toBe(200)
    expect(health.json.status).toBe('ok')
    expect(health.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    expect((await invoke(event('POST', '/v1/databases', json({ name: 'db' })))).statusCode).toBe(201)
    const table = {
      name: 't',
      schema: {
        columns: [
          { name: 'id', type: 'INT NOT NULL' },
          { name: 's', type: 'STRING' },
        ],
      },
    }
    expect((await invoke(event('POST', '/v1/databases/db/tables', json(table)))).statusCode).toBe(201)
    const appended = await invoke(
      event('POST', '/v1/databases/db/tables/t/append', json({ rows: [{ id: 1, s: 'a' }] })),
    )
    expect(appended.json).toEqual({ row_count: 1 })
    expect(boots()).toBe(1)
  })

  it('decodes base64 Arrow bodies and handles query strings', async () => {
    const { invoke, backend } = setup()
    await invoke(event('POST', '/v1/databases', json({ name: 'db' })))
    await invoke(
      event(
        'POST',
        '/v1/databases/db/tables',
        json({ name: 't', schema: { columns: [{ name: 'id', type: 'INT NOT NULL' }] } }),
      ),
    )
    const rowType: RowType = {
      type: 'ROW',
      nullable: false,
      fields: [{ name: 'id', type: notNull(DataTypes.INT()), fieldId: 0 }],
    }
    const w = new ArrowBatchWriter(rowType)
    w.addRow([5])
    const body = Buffer.from(writeArrowStream(rowType, [w.finish()])).toString('base64')
    const res = await invoke(
      event('POST', '/v1/databases/db/tables/t/append', {
        body,
        base64: true,
        headers: { 'content-type': 'application/vnd.apache.arrow.stream' },
      }),
    )
    expect(res.statusCode).toBe(200)
    expect(backend.writtenRows).toBe(1)
    expect((await invoke(event('DELETE', '/v1/databases/db', { query: 'cascade=true' }))).statusCode).toBe(
      204,
    )
    expect((await invoke(event('GET', '/v1/databases', { query: 'x=1' }))).statusCode).toBe(400)
  })

  it('takes the principal from the IAM or JWT authorizer context', async () => {
    const { invoke, backend } = setup({
      'gateway.security.authentication': 'token',
      'gateway.security.tokens': 't:u',
    })
    const arn = 'arn:aws:iam::123456789012:role/app'
    expect(
      (
        await invoke(
          event('GET', '/v1/databases', { authorizer: { iam: { userArn: arn, callerId: 'AROA1' } } }),
        )
      ).statusCode,
    ).toBe(200)
    expect(
      (
        await invoke(
          event('GET', '/v1/databases', {
            authorizer: { jwt: { claims: { sub: 'user-7', scope: 'read' }, scopes: null } },
          }),
        )
      ).statusCode,
    ).toBe(200)
    expect(backend.principals).toEqual([
      { name: arn, via: 'aws-iam' },
      { name: 'user-7', via: 'aws-jwt', claims: { sub: 'user-7', scope: 'read' } },
    ])
    const direct = await invoke(event('GET', '/v1/databases'))
    expect([direct.statusCode, direct.json.error.code]).toEqual([401, 'unauthenticated'])
    expect(
      (await invoke(event('GET', '/v1/databases', { headers: { authorization: 'Bearer t' } }))).statusCode,
    ).toBe(200)
  })
})
