import { ERRORS, type ErrorName, FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { renderError } from './envelope.js'
import { GATEWAY_CODES, type GatewayCode } from './gateway-codes.js'
import { GatewayError } from './gateway-error.js'

describe('renderError', () => {
  it('renders every gateway code with its status, and Retry-After on 429 and 503 only', () => {
    for (const [code, status] of Object.entries(GATEWAY_CODES)) {
      const r = renderError(new GatewayError(code as GatewayCode, 'm'), 'rid')
      expect(r.status).toBe(status)
      expect(r.body).toEqual({ error: { code, message: 'm', request_id: 'rid' } })
      expect(r.headers['retry-after']).toBe(status === 429 || status === 503 ? '1' : undefined)
    }
    expect(
      renderError(new GatewayError('resource_exhausted', 'm', { retryAfterSec: 2.5 }), 'r').headers[
        'retry-after'
      ],
    ).toBe('3')
  })

  it("maps every FlussError through the error table's gateway code and status", () => {
    for (const name of Object.keys(ERRORS) as ErrorName[]) {
      const spec = ERRORS[name]
      const r = renderError(new FlussError(name, 'why'), 'rid')
      if (spec.http >= 400)
        expect([r.status, r.body.error.code, r.body.error.message]).toEqual([
          spec.http,
          spec.gatewayCode,
          'why',
        ])
      else expect([r.status, r.body.error.code]).toEqual([500, 'internal'])
    }
    expect(renderError(new FlussError('AUTHORIZATION_EXCEPTION'), 'r').status).toBe(403)
    expect(renderError(new FlussError('LEADER_NOT_AVAILABLE_EXCEPTION'), 'r').headers['retry-after']).toBe(
      '1',
    )
  })

  it('a table created while tablet servers are still joining is 503 with Retry-After, not 400', () => {
    const joining = FlussError.fromCode(29, 'Replication factor: 1 larger than available tablet servers: 0.')
    const r = renderError(joining, 'rid')
    expect([r.status, r.body.error.code, r.headers['retry-after']]).toEqual([503, 'unavailable', '1'])
  })

  it('hides the message of unexpected errors', () => {
    const r = renderError(new RangeError('stack details'), 'rid')
    expect(r).toMatchObject({
      status: 500,
      internal: true,
      body: { error: { code: 'internal', message: 'Internal gateway error.' } },
    })
  })

  it('adds the rows of a partial write', () => {
    const partialWrite = {
      acknowledgedRows: [0, 2],
      failedRows: [{ index: 1, code: 'unavailable', message: 'x' }],
    }
    const r = renderError(GatewayError.withStatus('unavailable', 503, 'part', { partialWrite }), 'rid')
    expect(r.status).toBe(503)
    expect(r.body.error).toMatchObject({
      code: 'unavailable',
      acknowledged_rows: [0, 2],
      failed_rows: partialWrite.failedRows,
    })
    expect(r.internal).toBe(false)
  })
})
