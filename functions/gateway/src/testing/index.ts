export { MemoryGatewayBackend, type RowFailureInjector } from './memory-backend.js'
export { MemoryCatalog, type MemoryLogRecord, MemoryTable } from './memory-catalog.js'
export { responseProblem } from './openapi-check.js'
