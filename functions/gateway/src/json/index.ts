// Typed JSON of Fluss rows as the gateway reads and writes them (docs/gateway.md, "Typed JSON").

export { parseTypeString } from '@sluice/core/types'
export { JsonRowReader, type JsonRowReaderOptions, JsonRowWriter } from './row-codec.js'
