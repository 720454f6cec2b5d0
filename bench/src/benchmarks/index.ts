import type { Benchmark } from '../harness.js'
import { arrowEncode } from './arrow-encode.js'

// biome-ignore lint/suspicious/noExplicitAny: benchmarks have heterogeneous contexts
export const BENCHMARKS: readonly Benchmark<any>[] = [arrowEncode]
