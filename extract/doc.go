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
//   - Transient failures (network errors including a per-call timeout, 408,
//     429, 502, 503, 504, and a 500 that is not a validation error) are
//     retried with capped exponential backoff and jitter, honouring
//     Retry-After. The SDK's own retries are switched off so this loop is the
//     only one and Usage.Calls is exact. Other failures (400, 404, 422, a 500
//     carrying a validation error, ...) are deterministic and not retried.
//   - A failure of any status whose body names response_format, json_object
//     or the schema means the server does not accept this response format:
//     the call is repeated at once, without backoff, in the next one of
//     json_schema → json_object with the schema attached → json_object →
//     plain text. The format that works is remembered per endpoint and model
//     for the life of the process (and logged once), so later episodes start
//     there. Config.Mode pins one format instead.
//   - An answer that is not usable JSON of the requested shape gets one
//     repair call, in JSON mode (with the schema still attached when the
//     answer came in that mode): the bad answer goes back with the reason
//     it was rejected. A second bad answer is EUNPROCESSABLE.
//
// The answer is validated deterministically, fact by fact (see Extract).
// Facts that break a rule, name something the episode does not (not
// grounded) or repeat another are dropped one by one and reported in
// Output.Dropped with their reason; only an answer whose every fact is
// broken in form counts as a bad answer. Permission-like statements ("you may skip confirmation") are never
// returned as facts, whatever the model says (see entity.PermissionStatement).
//
// Errors are *entity.Error: EINVALID from New for a bad Config, EUNAVAILABLE
// when the endpoint cannot be reached or keeps failing (retry later),
// EUNPROCESSABLE when the endpoint refuses this episode or answers garbage
// twice. Usage is returned with errors too, so failed calls are counted.
package extract
