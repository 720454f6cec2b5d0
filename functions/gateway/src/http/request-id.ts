import { randomUUID } from 'node:crypto'

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

export const REQUEST_ID_HEADER = 'x-request-id'

/** The caller's `x-request-id` when it is a UUID, else a new random UUID. */
export function requestIdFor(incoming: string | undefined): string {
  return incoming !== undefined && UUID.test(incoming) ? incoming.toLowerCase() : randomUUID()
}
