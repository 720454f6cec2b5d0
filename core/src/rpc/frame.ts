import { assert, FlussError } from '../errors/index.js'
import { ErrorResponse } from './generated/fluss-api.js'
import { type MessageType, MessageWriter } from './message-codec.js'

/**
 * Fluss RPC frames. All header integers are big-endian; the body is one protobuf message.
 *
 *   request         int32 length | int16 apiKey | int16 apiVersion | int32 requestId | body
 *   success/error   int32 length | int8 type (0 | 1) | int32 requestId | body (message | ErrorResponse)
 *   server failure  int32 length | int8 type (2) | ErrorResponse          (the server then closes)
 *
 * `length` counts the bytes after itself. Encoders return chunks to write in order (one writev);
 * large `bytes` fields of the body are chunks of their own and are never copied.
 */

export const LENGTH_PREFIX_BYTES = 4
export const REQUEST_HEADER_BYTES = 8
export const RESPONSE_HEADER_BYTES = 5
export const SERVER_FAILURE_HEADER_BYTES = 1
/** Largest frame the int32 length prefix can describe. */
export const MAX_FRAME_BYTES = 2 ** 31 - 1

export const ResponseType = { SUCCESS: 0, ERROR: 1, SERVER_FAILURE: 2 } as const

export interface RequestHeader {
  readonly apiKey: number
  readonly apiVersion: number
  readonly requestId: number
}

/** A request frame without its length prefix; `body` is a view into the frame. */
export interface RequestFrame extends RequestHeader {
  readonly body: Buffer
}

export type ResponseFrame =
  | { readonly type: 0 | 1; readonly requestId: number; readonly body: Buffer }
  | { readonly type: 2; readonly body: Buffer }

export function encodeRequest<I>(header: RequestHeader, type: MessageType<unknown, I>, message: I): Buffer[] {
  return encodeFrame(LENGTH_PREFIX_BYTES + REQUEST_HEADER_BYTES, type, message, first => {
    first.writeInt16BE(header.apiKey, 4)
    first.writeInt16BE(header.apiVersion, 6)
    first.writeInt32BE(header.requestId, 8)
  })
}

export function encodeSuccessResponse<I>(
  requestId: number,
  type: MessageType<unknown, I>,
  message: I,
): Buffer[] {
  return encodeFrame(LENGTH_PREFIX_BYTES + RESPONSE_HEADER_BYTES, type, message, first => {
    first.writeInt8(ResponseType.SUCCESS, 4)
    first.writeInt32BE(requestId, 5)
  })
}

export function encodeErrorResponse(
  requestId: number,
  errorCode: number,
  errorMessage?: string | null,
): Buffer[] {
  return encodeFrame(
    LENGTH_PREFIX_BYTES + RESPONSE_HEADER_BYTES,
    ErrorResponse,
    { errorCode, errorMessage },
    first => {
      first.writeInt8(ResponseType.ERROR, 4)
      first.writeInt32BE(requestId, 5)
    },
  )
}

export function encodeServerFailure(errorCode: number, errorMessage?: string | null): Buffer[] {
  const header = LENGTH_PREFIX_BYTES + SERVER_FAILURE_HEADER_BYTES
  return encodeFrame(header, ErrorResponse, { errorCode, errorMessage }, first => {
    first.writeInt8(ResponseType.SERVER_FAILURE, 4)
  })
}

function encodeFrame<I>(
  headerBytes: number,
  type: MessageType<unknown, I>,
  message: I,
  writeHeader: (first: Buffer) => void,
): Buffer[] {
  const writer = new MessageWriter().skip(headerBytes)
  type.encodeTo(message, writer)
  const frameBytes = writer.byteLength - LENGTH_PREFIX_BYTES
  assert(
    frameBytes <= MAX_FRAME_BYTES,
    `${type.name} frame of ${frameBytes} bytes exceeds the int32 length prefix`,
  )
  const chunks = writer.chunks()
  const first = chunks[0]
  assert(first.length >= headerBytes, 'frame header must sit in the first chunk')
  first.writeInt32BE(frameBytes, 0)
  writeHeader(first)
  return chunks
}

/** Splits a request frame (length prefix already removed) into header and body. */
export function parseRequestFrame(frame: Buffer): RequestFrame {
  if (frame.length < REQUEST_HEADER_BYTES) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `Request frame of ${frame.length} bytes is shorter than its header`,
    )
  }
  return {
    apiKey: frame.readInt16BE(0),
    apiVersion: frame.readInt16BE(2),
    requestId: frame.readInt32BE(4),
    body: frame.subarray(REQUEST_HEADER_BYTES),
  }
}

/** Splits a response frame (length prefix already removed) into type, request id and body. */
export function parseResponseFrame(frame: Buffer): ResponseFrame {
  const type = frame.length > 0 ? frame.readInt8(0) : -1
  if (type === ResponseType.SERVER_FAILURE) return { type, body: frame.subarray(SERVER_FAILURE_HEADER_BYTES) }
  if (type !== ResponseType.SUCCESS && type !== ResponseType.ERROR) {
    throw new FlussError('CORRUPT_MESSAGE', `Unknown response type ${type} in a ${frame.length}-byte frame`)
  }
  if (frame.length < RESPONSE_HEADER_BYTES) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `Response frame of ${frame.length} bytes is shorter than its header`,
    )
  }
  return { type, requestId: frame.readInt32BE(1), body: frame.subarray(RESPONSE_HEADER_BYTES) }
}

/** Decodes the ErrorResponse body of an error or server-failure frame into a FlussError. */
export function decodeErrorBody(body: Buffer): FlussError {
  const error = ErrorResponse.decode(body)
  return FlussError.fromCode(error.errorCode, error.errorMessage)
}
