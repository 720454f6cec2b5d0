/** Paths and generator of core/src/rpc/generated/ (see gen-proto.mjs). */
export declare const PROTO_PATH: string
export declare const RUNTIME_PATH: string
export declare const TYPES_PATH: string
export declare function generate(): Promise<{ runtime: string; types: string }>
