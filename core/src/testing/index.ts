export * from './peers.js'
