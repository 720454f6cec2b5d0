import { GatewayError } from '../errors/gateway-error.js'

/** 501 for an operation the SDK cannot do yet; the message says what is missing. */
export function unsupported(operation: string, missing: string): GatewayError {
  return new GatewayError('unsupported', `${operation} is not supported yet: ${missing}.`)
}
