// Package bench generates realistic synthetic workloads and measures
// graphmem against baselines run in the same process: a raw bbolt write
// loop for ingestion, the search index's own BM25 query for recall.
package bench
