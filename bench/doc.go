// Package bench generates realistic synthetic workloads and measures
// graphmem against baselines run in the same process: a raw bbolt write
// loop for ingestion (later, a raw Bleve query for search).
package bench
