import { GatewayError } from '../errors/gateway-error.js'

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    'limit_exceeded',
    `The request body exceeds ${maxBytes} bytes (gateway.rest.write.max-request-bytes).`,
  )
}

/**
 * Reads a request body of at most `maxBytes`: a larger Content-Length is refused before reading,
 * and a body without one is refused as soon as the bytes read pass the limit (the rest is not read).
 * HTTP framing keeps a body to its Content-Length.
 */
export async function readBodyBytes(req: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = req.headers.get('content-length')
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes)
  // With a Content-Length within the limit the body is read whole (hosts read it without streams).
  if (declared !== null) return new Uint8Array(await req.arrayBuffer())
  if (req.body === null) return new Uint8Array(0)
  const reader = req.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  if (chunks.length === 1) return chunks[0]
  const out = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
  }
  return out
}

/** Whether a request carries a non-empty body (routes without a request body refuse one). */
export async function hasBody(req: Request): Promise<boolean> {
  const length = req.headers.get('content-length')
  if (length !== null) return Number(length) > 0
  if (req.body === null) return false
  const reader = req.body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return false
      if (value.byteLength > 0) return true
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}
