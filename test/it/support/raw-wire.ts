import { connect } from 'node:net'
import type { FlussError } from '@sluice/core/errors'
import {
  type ApiName,
  type ApiRequestInit,
  type ApiResponse,
  apiSpec,
  decodeErrorBody,
  encodeRequest,
  FrameDecoder,
  parseResponseFrame,
  ResponseType,
} from '@sluice/core/rpc'

/** One frame the server sent back, decoded as far as the raw test needs. */
export type RawResponse =
  | { readonly kind: 'success'; readonly requestId: number; readonly body: Buffer }
  | { readonly kind: 'error'; readonly requestId: number; readonly error: FlussError }
  | { readonly kind: 'server-failure'; readonly error: FlussError }
  | { readonly kind: 'unparseable'; readonly detail: string }

/** What happened on one raw connection. */
export interface Exchange {
  readonly responses: RawResponse[]
  /** The server closed (or reset) the connection. */
  readonly closed: boolean
  /** Neither a close nor the expected responses arrived in time. */
  readonly timedOut: boolean
}

export interface ExchangeOptions {
  /** Half-close our side after writing (the server then sees EOF). */
  readonly endAfterWrite?: boolean
  /** Resolve once this many frames arrived (default: wait for the close). */
  readonly expectResponses?: number
  readonly timeoutMs?: number
}

function decodeResponse(frame: Buffer): RawResponse {
  try {
    const r = parseResponseFrame(frame)
    if (r.type === ResponseType.SERVER_FAILURE)
      return { kind: 'server-failure', error: decodeErrorBody(r.body) }
    if (r.type === ResponseType.ERROR)
      return { kind: 'error', requestId: r.requestId, error: decodeErrorBody(r.body) }
    return { kind: 'success', requestId: r.requestId, body: Buffer.from(r.body) }
  } catch (e) {
    return { kind: 'unparseable', detail: String(e) }
  }
}

/**
 * Opens a fresh TCP connection, writes `bytes` as they are (no handshake), and collects the
 * response frames until the server closes, the expected number of frames arrived, or the timeout.
 */
export function exchange(
  host: string,
  port: number,
  bytes: Buffer,
  options: ExchangeOptions = {},
): Promise<Exchange> {
  const responses: RawResponse[] = []
  const decoder = new FrameDecoder({ maxFrameBytes: 64 * 1024 * 1024 })
  return new Promise(resolve => {
    const socket = connect({ host, port })
    let settled = false
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ responses, closed, timedOut })
    }
    const timer = setTimeout(() => finish(false, true), options.timeoutMs ?? 5000)
    socket.on('connect', () => {
      socket.write(bytes)
      if (options.endAfterWrite) socket.end()
    })
    socket.on('data', chunk => {
      try {
        decoder.push(chunk, frame => responses.push(decodeResponse(Buffer.from(frame))))
      } catch (e) {
        responses.push({ kind: 'unparseable', detail: String(e) })
      }
      if (options.expectResponses !== undefined && responses.length >= options.expectResponses)
        finish(false, false)
    })
    socket.on('error', () => finish(true, false))
    socket.on('close', () => finish(true, false))
  })
}

/** A complete request frame, as one buffer. */
export function requestFrame<K extends ApiName>(
  name: K,
  request: ApiRequestInit<K>,
  requestId = 1,
  apiVersion = 0,
): Buffer {
  const spec = apiSpec(name)
  return Buffer.concat(encodeRequest({ apiKey: spec.key, apiVersion, requestId }, spec.request, request))
}

/** A frame with a valid header and an arbitrary body. */
export function rawFrame(apiKey: number, apiVersion: number, requestId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(12)
  head.writeInt32BE(8 + body.length, 0)
  head.writeInt16BE(apiKey, 4)
  head.writeInt16BE(apiVersion, 6)
  head.writeInt32BE(requestId, 8)
  return Buffer.concat([head, body])
}

/** Decodes a success body as the response of `name`. */
export function decodeSuccess<K extends ApiName>(name: K, body: Buffer): ApiResponse<K> {
  return apiSpec(name).response.decode(body) as ApiResponse<K>
}
