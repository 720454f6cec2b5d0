import { GatewayError } from '../errors/gateway-error.js'

export const JSON_MEDIA_TYPE = 'application/json'
export const ARROW_STREAM_MEDIA_TYPE = 'application/vnd.apache.arrow.stream'

export type BodyFormat = 'json' | 'arrow'

/**
 * The format of a request body from its Content-Type: JSON (`application/json` or a `+json`
 * type, UTF-8 only) or, where the route takes it, an Arrow IPC stream. Anything else is 415.
 */
export function bodyFormat(contentType: string | undefined, arrowAllowed: boolean): BodyFormat {
  const accepted = arrowAllowed ? `${JSON_MEDIA_TYPE} or ${ARROW_STREAM_MEDIA_TYPE}` : JSON_MEDIA_TYPE
  if (contentType === undefined || contentType.trim() === '') {
    throw new GatewayError('unsupported_media_type', `A Content-Type header is required: ${accepted}.`)
  }
  const [type, ...params] = contentType.split(';').map(s => s.trim().toLowerCase())
  if (
    type === JSON_MEDIA_TYPE ||
    (/^application\/[a-z0-9.+-]+\+json$/.test(type) && type !== ARROW_STREAM_MEDIA_TYPE)
  ) {
    const charset = params
      .find(p => p.startsWith('charset='))
      ?.slice('charset='.length)
      .replace(/"/g, '')
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw new GatewayError('unsupported_media_type', `JSON bodies must be UTF-8, not charset ${charset}.`)
    }
    return 'json'
  }
  if (arrowAllowed && type === ARROW_STREAM_MEDIA_TYPE) return 'arrow'
  throw new GatewayError(
    'unsupported_media_type',
    `Content-Type ${type} is not accepted here; send ${accepted}.`,
  )
}

/** Whether an Accept header admits a JSON response (absent = anything). */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true
  return accept.split(',').some(range => {
    const [type, ...params] = range.split(';').map(s => s.trim().toLowerCase())
    const q = params.find(p => p.startsWith('q='))
    if (q !== undefined && Number(q.slice(2)) === 0) return false
    return type === '*/*' || type === 'application/*' || type === JSON_MEDIA_TYPE
  })
}
