import type { Benchmark } from '../harness.js'
import { arrowEncode } from './arrow-encode.js'
import { gatewayAppendArrow, gatewayAppendJson } from './gateway-append.js'
import { logAppend } from './log-append.js'
import { projectedScan } from './projected-scan.js'
import { sdkAppend } from './sdk-append.js'

// biome-ignore lint/suspicious/noExplicitAny: benchmarks have heterogeneous contexts
export const BENCHMARKS: readonly Benchmark<any>[] = [
  arrowEncode,
  logAppend,
  sdkAppend,
  projectedScan,
  gatewayAppendJson,
  gatewayAppendArrow,
]
