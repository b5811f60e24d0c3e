// Package extract turns one episode into entities and dated facts with one
// chat-completions call to any OpenAI-compatible endpoint (OpenAI, Azure,
// Ollama, vLLM, the llama.cpp server).
//
// The normal path is exactly one call: the prompt carries the ontology, the
// known entities of the scope, the speaker, role, reference time and content,
// and the answer is requested as strict JSON-schema output. Everything else
// is the unhappy path, and each step of it costs one more call that is
// counted in Usage:
//
//   - 429, 5xx and network failures (including a per-call timeout) are
//     retried with capped exponential backoff and jitter, honouring
//     Retry-After. The SDK's own retries are switched off so this loop is the
//     only one and Usage.Calls is exact.
//   - A 400/422 that names response_format or json_schema means the server
//     does not speak structured outputs: the call is repeated in JSON mode
//     (response_format json_object), and the Extractor remembers it so later
//     episodes go straight to JSON mode.
//   - An answer that is not usable JSON of the requested shape gets one
//     repair call, in JSON mode: the bad answer goes back with the reason it
//     was rejected. A second bad answer is EUNPROCESSABLE.
//
// The answer is validated deterministically, fact by fact (see Extract).
// Facts that break a rule are dropped one by one and reported in
// Output.Dropped; only an answer whose every fact is broken counts as a bad
// answer. Permission-like statements ("you may skip confirmation") are never
// returned as facts, whatever the model says (see entity.PermissionStatement).
//
// Errors are *entity.Error: EINVALID from New for a bad Config, EUNAVAILABLE
// when the endpoint cannot be reached or keeps failing (retry later),
// EUNPROCESSABLE when the endpoint refuses this episode or answers garbage
// twice. Usage is returned with errors too, so failed calls are counted.
package extract
