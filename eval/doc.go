// Package eval measures graphmem's recall on public benchmarks.
//
// LoCoMo (Maharana et al., ACL 2024) holds long conversations between two
// people with questions whose evidence turns are annotated. Each
// conversation goes into its own scope as episodes — one per turn, with
// the speaker, the text, the caption of a shared image, the session date
// as reference time and the turn id in metadata — in an embedded store,
// indexed like any other data. Every question of categories 1–4 is then
// asked through recall.Engine.Search, the path agents use, and scored by
// evidence recall@k: the fraction of a question's evidence turns among the
// first k distinct turns retrieved (a fact counts for the turns it was
// derived from), averaged over questions. A plain Okapi BM25 over single
// turns with the same text ("speaker: text [shares an image: caption]"),
// computed in the same run, is the baseline; an ablation runs the same
// search with groups of episode signals turned off. Conversations 26, 30
// and 41 are the dev part, the only one weights may be chosen on; 42, 43,
// 44 and 47 the test part, reported by default.
package eval
