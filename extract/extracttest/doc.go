// Package extracttest is a scriptable fake of an OpenAI-compatible
// chat-completions endpoint, for testing the extract package and whatever
// is wired to it without a model.
//
// The fake speaks the real protocol: POST {base}/chat/completions with the
// usual JSON body, answered with the usual chat.completion object (id,
// object, created, model, choices[0].message.content, finish_reason, usage)
// or with an error object and status. It records every request, so a test
// can assert how many calls were made and what they carried.
package extracttest
