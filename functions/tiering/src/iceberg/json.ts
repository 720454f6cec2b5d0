// Lossless JSON (64-bit ids as bigint) lives with the SDK's lake reader; the writer shares it.
export { isJsonObject, type Json, parseJson, stringifyJson } from '@sluice/client/union/iceberg'
