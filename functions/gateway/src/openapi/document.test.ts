import { ERRORS } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { GATEWAY_CODES } from '../errors/gateway-codes.js'
import { responseProblem } from '../testing/openapi-check.js'
import { testGateway } from '../testing/test-app.js'
import { type JsonSchema, validateSchema } from './json-schema.js'

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out)
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v)
      else refs(v, out)
    }
  }
  return out
}

describe('OpenAPI document', () => {
  it('is generated from the mounted routes: one operation per registered route', async () => {
    const gw = testGateway()
    const res = await gw.call('GET', '/v1/openapi.json')
    const doc = res.body
    expect(doc.openapi).toBe('3.1.0')
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map(m => `${m.toUpperCase()} ${path}`),
    )
    expect(operations.sort()).toEqual(
      gw.app.registry.routes.map(r => `${r.method.toUpperCase()} ${r.path}`).sort(),
    )
    expect(operations).toContain('POST /v1/databases/{database}/tables/{table}/append')
    const ids = gw.app.registry.routes.map(r => r.operationId)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('declares every path parameter, resolves every $ref and documents the error envelope on each operation', async () => {
    const doc = (await testGateway().call('GET', '/v1/openapi.json')).body
    for (const [path, ops] of Object.entries(doc.paths) as [
      string,
      Record<string, { parameters: { name: string; in: string }[]; responses: Record<string, unknown> }>,
    ][]) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map(m => m[1])
      for (const op of Object.values(ops)) {
        expect(
          op.parameters
            .filter(p => p.in === 'path')
            .map(p => p.name)
            .sort(),
        ).toEqual(names.sort())
        expect(op.responses['500']).toBeDefined()
      }
    }
    for (const ref of refs(doc))
      expect(doc.components.schemas[ref.replace('#/components/schemas/', '')], ref).toBeDefined()
    const append = doc.paths['/v1/databases/{database}/tables/{table}/append'].post
    expect(Object.keys(append.requestBody.content)).toEqual([
      'application/json',
      'application/vnd.apache.arrow.stream',
    ])
    expect(Object.keys(append.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '413', '415', '429', '503', '504']),
    )
    expect(append.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key')
  })

  it('enumerates every error code and its statuses from the error tables', async () => {
    const doc = (await testGateway().call('GET', '/v1/openapi.json')).body
    const codes: string[] = doc.components.schemas.ErrorEnvelope.properties.error.properties.code.enum
    for (const code of Object.keys(GATEWAY_CODES)) expect(codes).toContain(code)
    for (const spec of Object.values(ERRORS)) if (spec.http >= 400) expect(codes).toContain(spec.gatewayCode)
    expect(doc['x-error-codes'].table_not_found).toEqual([404])
    expect(doc['x-error-codes'].resource_exhausted).toContain(429)
  })

  it('publishes the security scheme of the authentication mode', async () => {
    const doc = (
      await testGateway({
        'gateway.security.authentication': 'token',
        'gateway.security.tokens': 'a:b',
      }).call('GET', '/v1/openapi.json')
    ).body
    expect(doc.components.securitySchemes).toEqual({ bearerToken: { type: 'http', scheme: 'bearer' } })
    expect(doc.paths['/v1/databases'].get.security).toEqual([{ bearerToken: [] }])
    expect(doc.paths['/health'].get.security).toEqual([])
  })

  it('catches responses that do not match it', async () => {
    const doc = (await testGateway().call('GET', '/v1/openapi.json')).body
    expect(responseProblem(doc, 'GET', '/v1/databases', 200, { databases: ['a'] })).toBeUndefined()
    expect(responseProblem(doc, 'GET', '/v1/databases', 200, { databases: [1] })).toMatch(
      /databases\[0\]: must be a string/,
    )
    expect(responseProblem(doc, 'GET', '/v1/databases', 201, {})).toMatch(/does not document status 201/)
    expect(
      responseProblem(doc, 'GET', '/v1/databases/x', 404, {
        error: { code: 'nope', message: '', request_id: '' },
      }),
    ).toMatch(/code: must be one of/)
    expect(
      responseProblem(doc, 'GET', '/nowhere', 404, {
        error: { code: 'not_found', message: 'x', request_id: 'r' },
      }),
    ).toBeUndefined()
  })
})

describe('validateSchema', () => {
  const resolve = (): JsonSchema => ({ type: 'string' })
  it('describes rows in typed JSON with nested values (TypedValue, MapEntry)', async () => {
    const doc = (await testGateway().call('GET', '/v1/openapi.json')).body
    const schemas = doc.components.schemas
    expect(schemas.Row.additionalProperties).toEqual({ $ref: '#/components/schemas/TypedValue' })
    expect(schemas.TypedValue.description).toMatch(/other MAPs an array of MapEntry/)
    expect(schemas.MapEntry).toMatchObject({ required: ['key'], additionalProperties: false })
    const resolve = (ref: string) => schemas[ref.split('/').pop() as string] as JsonSchema
    const row = { tags: ['a', null], by_id: [{ key: '1', value: { x: 1 } }], m: { a: 1 }, p: { x: [] } }
    expect(validateSchema({ $ref: '#/components/schemas/Row' }, row, '', resolve)).toBeUndefined()
    expect(validateSchema({ $ref: '#/components/schemas/MapEntry' }, { value: 1 }, '', resolve)).toBe(
      'key: is required',
    )
  })

  it('checks the emitted subset', () => {
    const s: JsonSchema = {
      type: 'object',
      required: ['a'],
      additionalProperties: false,
      properties: {
        a: { type: 'integer', minimum: 1, maximum: 3 },
        b: { oneOf: [{ type: 'string', enum: ['x'] }, { type: 'integer' }] },
        c: { anyOf: [{ $ref: '#/components/schemas/S' }, { type: 'null' }] },
        d: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, maxItems: 1 },
      },
    }
    expect(validateSchema(s, { a: 2, b: 'x', c: null, d: ['ok'] }, '', resolve)).toBeUndefined()
    expect(validateSchema(s, {}, '', resolve)).toBe('a: is required')
    expect(validateSchema(s, { a: 4 }, '', resolve)).toBe('a: must be at most 3')
    expect(validateSchema(s, { a: 1.5 }, '', resolve)).toBe('a: must be an integer, got number')
    expect(validateSchema(s, { a: 2 ** 60 }, '', resolve)).toMatch(/below 2\^53/)
    expect(validateSchema(s, { a: 1, b: 'y' }, '', resolve)).toMatch(/b: must be one of "x"/)
    expect(validateSchema(s, { a: 1, c: 5 }, '', resolve)).toMatch(/c: must be a string/)
    expect(validateSchema(s, { a: 1, d: ['A'] }, '', resolve)).toMatch(/d\[0\]: must match/)
    expect(validateSchema(s, { a: 1, d: ['a', 'b'] }, '', resolve)).toMatch(/at most 1 items/)
    expect(validateSchema(s, { a: 1, z: 1 }, '', resolve)).toBe('z: is not a known member')
  })
})
