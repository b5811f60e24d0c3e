package entity

import (
	"fmt"
	"sort"
	"strings"
)

// Reasons a fact the extraction model proposed is dropped.
const (
	// DropNotGrounded: its subject, object or value is named nowhere in the
	// episode, its speaker or the known entities it was given.
	DropNotGrounded = "not_grounded"
	// DropPermission: a permission granted to the agent, never memory.
	DropPermission = "permission"
	// DropBadDate: a valid_from or valid_to that is not a time, or an end
	// before the start.
	DropBadDate = "bad_date"
	// DropMalformed: an empty or malformed subject, predicate, object or
	// value, or a field of the wrong kind.
	DropMalformed = "malformed"
	// DropDuplicate: the same statement earlier in the same answer.
	DropDuplicate = "duplicate"
	// DropForgotten: the user forgot this fact; extraction cannot bring it
	// back.
	DropForgotten = "forgotten"
)

// dropNames say each reason in words, for summaries.
var dropNames = map[string]string{
	DropNotGrounded: "not grounded in the episode",
	DropPermission:  "a permission",
	DropBadDate:     "a bad date",
	DropMalformed:   "malformed",
	DropDuplicate:   "a duplicate",
	DropForgotten:   "forgotten by the user",
}

// Extraction is the report of an episode's extraction: what the model
// proposed, what was kept, what was dropped and why, and what it cost. It
// is recorded with the episode when its extraction ends, so an episode
// with no facts says why.
type Extraction struct {
	// Prompt is the prompt style ("full" or "compact"); Mode the response
	// format the answer came in (json_schema, json_object_schema,
	// json_object, text).
	Prompt string `json:"prompt,omitempty"`
	Mode   string `json:"mode,omitempty"`
	// Repaired is set when the first answer was unusable and a repair
	// call's answer was used.
	Repaired bool `json:"repaired,omitempty"`
	// Proposed counts the facts of the model's answer, Kept those stored
	// (created, corroborating or changing a fact); the others are Dropped.
	Proposed int           `json:"proposed"`
	Kept     int           `json:"kept"`
	Dropped  []DroppedFact `json:"dropped,omitempty"`
	// Warnings are notes on kept facts, e.g. a predicate the ontology does
	// not define.
	Warnings []string `json:"warnings,omitempty"`
	// Calls, PromptTokens and CompletionTokens are the cost of this
	// extraction (the episode's token totals sum every attempt).
	Calls            int   `json:"calls"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	// Skipped says why no model was asked (e.g. none is configured).
	Skipped string `json:"skipped,omitempty"`
	// Error is why the extraction failed (the episode is retried).
	Error string `json:"error,omitempty"`
}

// DroppedFact is a fact the model proposed and graphmem left out. Object
// is its object or value as the model wrote it.
type DroppedFact struct {
	Subject   string `json:"subject,omitempty"`
	Predicate string `json:"predicate,omitempty"`
	Object    string `json:"object,omitempty"`
	// Reason is one of the Drop… codes; Detail says what exactly.
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Drop records a dropped fact.
func (x *Extraction) Drop(d DroppedFact) { x.Dropped = append(x.Dropped, d) }

// Summary says in one sentence what the extraction did; for an episode
// with no facts, why there are none.
func (x *Extraction) Summary() string {
	if x == nil {
		return ""
	}
	if x.Skipped != "" {
		return "not extracted: " + x.Skipped
	}
	if x.Error != "" {
		return "extraction failed: " + x.Error
	}
	if x.Proposed == 0 {
		return "the model proposed no fact"
	}
	if len(x.Dropped) == 0 {
		return fmt.Sprintf("%s proposed, all kept", plural(x.Proposed, "fact"))
	}
	counts := map[string]int{}
	for _, d := range x.Dropped {
		counts[d.Reason]++
	}
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if counts[reasons[i]] != counts[reasons[j]] {
			return counts[reasons[i]] > counts[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	why := make([]string, len(reasons))
	for i, r := range reasons {
		name := dropNames[r]
		if name == "" {
			name = r
		}
		why[i] = fmt.Sprintf("%d %s", counts[r], name)
	}
	kept := fmt.Sprintf("%d kept", x.Kept)
	if x.Kept == 0 {
		kept = "none kept"
	}
	return fmt.Sprintf("%s proposed, %s; dropped: %s", plural(x.Proposed, "fact"), kept, strings.Join(why, ", "))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
