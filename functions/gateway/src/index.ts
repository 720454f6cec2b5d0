export { createApp, GATEWAY_API_VERSION, type GatewayApp } from './app.js'
export * from './backend/gateway-backend.js'
export { SdkBackend } from './backend/sdk-backend.js'
export { DEFAULT_SDK_BACKEND_OPTIONS, type SdkBackendOptions } from './backend/sdk-tables.js'
export { type ErrorEnvelope, renderError } from './errors/envelope.js'
export { GATEWAY_CODES, type GatewayCode } from './errors/gateway-codes.js'
export { GatewayError, type PartialWrite } from './errors/gateway-error.js'
export { configuredAuthenticator } from './http/auth.js'
export {
  type IdempotencyEntry,
  type IdempotencyStore,
  MemoryIdempotencyStore,
} from './http/idempotency-store.js'
export { apiGatewayAuthenticator } from './http/lambda-auth.js'
export {
  type APIGatewayProxyEventV2,
  createLambdaApp,
  type LambdaHandler,
  type LambdaHandlerOptions,
  lambdaHandler,
} from './lambda.js'
export { BootOnce, type RetryBackoff } from './lambda-boot.js'
export { GatewayLifecycle, type GatewayState } from './lifecycle.js'
export { type GatewayLimits, gatewayLimits } from './limits.js'
export { buildOpenApiDocument } from './openapi/document.js'
export { type GatewayServer, type GatewayServerOptions, startGatewayServer } from './server.js'
export * from './types.js'
