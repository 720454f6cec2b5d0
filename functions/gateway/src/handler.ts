/**
 * Lambda entry point of the HTTP gateway (API Gateway HTTP API, payload format 2.0).
 * Until the gateway app is wired in, every request gets a 503 in the gateway's error envelope.
 */
export interface GatewayResult {
  statusCode: number
  headers: Record<string, string>
  body: string
}

export async function handler(): Promise<GatewayResult> {
  return {
    statusCode: 503,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      error: { code: 'unavailable', message: 'The Sluice gateway is not available yet.' },
    }),
  }
}
