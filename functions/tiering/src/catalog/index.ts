// Lake catalogs: the atomic pointer swap of Iceberg commits (AWS Glue; a MetaStore item locally).
export * from './catalog.js'
export * from './glue-catalog.js'
export * from './local-catalog.js'
