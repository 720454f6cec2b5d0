import type { APIGatewayProxyEventV2 } from '../lambda.js'

export interface EventOptions {
  readonly body?: string
  readonly base64?: boolean
  readonly headers?: Record<string, string>
  readonly query?: string
  readonly authorizer?: Record<string, unknown>
}

/** An API Gateway HTTP API (payload 2.0) event as AWS delivers it. */
export function event(method: string, rawPath: string, o: EventOptions = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: o.query ?? '',
    headers: { host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'user-agent': 'curl/8', ...o.headers },
    body: o.body ?? null,
    isBase64Encoded: o.base64 === true,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authentication: null,
      authorizer: (o.authorizer ?? {}) as never,
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'curl/8' },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey: '$default',
      stage: '$default',
      time: '12/Mar/2025:19:03:58 +0000',
      timeEpoch: 1741806238000,
    },
  }
}
