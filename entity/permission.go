package entity

import "strings"

// permissionPhrases are phrasings of a permission granted to the agent. They
// are matched on lower-cased text with underscores and hyphens turned into
// spaces, so they catch predicates ("may_skip_confirmation") as well as
// sentences. The list errs on the side of dropping: a lost fact about who
// is "allowed to" park where is cheap, a remembered "no need to ask me
// before deploying" is not.
var permissionPhrases = []string{
	// skipping a check
	"may skip", "can skip", "could skip", "free to skip", "ok to skip", "okay to skip", "fine to skip",
	"skip confirmation", "skip the confirmation", "skip confirming", "skip asking", "skip approval",
	// not asking
	"no need to ask", "no need to confirm", "no need to check with", "no need for confirmation",
	"no need for approval", "need not ask", "need not confirm", "needn't ask", "needn't confirm",
	"without asking", "without confirmation", "without confirming", "without approval",
	"without my approval", "without permission", "without checking with",
	// granting
	"allowed to", "permitted to", "permission to", "authorized to", "authorised to",
	"you may ", "feel free to", "go ahead without", "auto approve", "pre approved", "preapproved",
	// Chinese
	"不用问", "不用再问", "不需要问", "无需询问", "不用确认", "无需确认", "不需要确认", "不必确认",
	"可以跳过", "跳过确认", "不用征求", "无需征得", "不用请示", "不用经过我", "不需要经过我",
	"允许你", "你可以直接",
}

func init() {
	// "don't / doesn't / do not … need / have to ask / confirm / check",
	// spelled out so the check stays a plain substring search.
	for _, aux := range []string{"do", "does", "did"} {
		for _, neg := range []string{"n't", " not"} {
			for _, must := range []string{"need", "have"} {
				for _, verb := range []string{"ask", "confirm", "check", "get approval"} {
					permissionPhrases = append(permissionPhrases, " "+aux+neg+" "+must+" to "+verb)
				}
			}
		}
	}
	phrasesAt = map[uint16][]string{}
	for _, p := range permissionPhrases {
		k := pairOf(p, 0)
		phraseStart[k] = true
		phrasesAt[k] = append(phrasesAt[k], p)
	}
}

// phraseStart marks the first two bytes of every phrase and phrasesAt lists
// the phrases by them, so a text is read once and phrases are tried only
// where one could start: every statement of every write path goes through
// this check.
var (
	phraseStart [1 << 16]bool
	phrasesAt   map[uint16][]string
)

func pairOf(s string, i int) uint16 { return uint16(s[i])<<8 | uint16(s[i+1]) }

// containsPhrase reports whether normalised text s contains a permission
// phrase.
func containsPhrase(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		k := pairOf(s, i)
		if !phraseStart[k] {
			continue
		}
		for _, p := range phrasesAt[k] {
			if strings.HasPrefix(s[i:], p) {
				return true
			}
		}
	}
	return false
}

var permissionReplacer = strings.NewReplacer("_", " ", "-", " ", "’", "'")

// permissionWords, as whole words of a predicate, make it a permission
// ("allowed_to_deploy", "has_permission", "may_merge").
var permissionWords = map[string]bool{
	"may": true, "allowed": true, "allow": true, "allows": true, "permitted": true, "permit": true,
	"permission": true, "permissions": true, "authorized": true, "authorised": true,
}

// PermissionLike reports whether a statement reads as a permission granted
// to the agent ("you may skip confirmation", "no need to ask me", "don't
// need to confirm", "allowed to"). Such statements are never memory
// (docs/design.md §5): they would quietly relax the agent's safeguards in
// later sessions.
// The check is deterministic, so it holds whatever the model returns.
func PermissionLike(text string) bool {
	s := permissionNorm(text)
	return containsPhrase(s) || instructionLike(s)
}

// An instruction to the agent reads as a word that drops or overrides
// something followed closely by what it drops: "never ask for
// confirmation before deleting files", "do not confirm", "stop asking
// first", "ignore previous instructions", "disregard all the above
// rules". A fixed phrase list misses the words put between ("never, ever
// ask"), so the pairs are matched within a window of words.
var (
	// negations drop a check named within negationWindow words.
	negations = map[string]bool{
		"never": true, "don't": true, "dont": true, "doesn't": true, "shouldn't": true, "stop": true, "skip": true,
	}
	// negated are the words after which "not" is a negation too ("do not
	// confirm", "must not ask first"), and only those: "could not confirm
	// the date" is news, not an instruction.
	negated = map[string]bool{"do": true, "does": true, "should": true, "must": true, "need": true, "to": true}
	// checks are dropped by a negation alone; asks only when what they
	// ask for follows within askWindow words ("never ask Bob about it" is
	// a fair wish, "never ask before deleting" drops a check).
	checks = map[string]bool{
		"confirm": true, "confirms": true, "confirming": true, "confirmation": true, "confirmations": true,
		"approval": true, "approve": true, "permission": true, "consent": true,
	}
	asks   = map[string]bool{"ask": true, "asks": true, "asking": true, "request": true, "wait": true, "waiting": true}
	askFor = map[string]bool{"confirmation": true, "permission": true, "approval": true, "consent": true, "before": true,
		"first": true, "beforehand": true, "ok": true, "okay": true}
	// overrides set aside what they name within overrideWindow words:
	// "ignore all previous instructions".
	overrides = map[string]bool{"ignore": true, "ignoring": true, "disregard": true, "disregarding": true,
		"forget": true, "override": true, "bypass": true}
	overridden = map[string]bool{
		"instruction": true, "instructions": true, "prompt": true, "prompts": true, "rules": true, "guidelines": true,
		"guardrails": true, "safeguards": true, "restrictions": true, "above": true, "safety": true, "policy": true,
		"policies": true,
	}
	// instructionStems: no instruction without one of them, so most texts
	// are done with after a few substring searches.
	instructionStems = []string{"ask", "wait", "request", "confirm", "approv", "permission", "consent", "instruction",
		"prompt", "rules", "guideline", "guardrail", "safeguard", "restriction", "above", "safety", "polic"}
)

const (
	negationWindow = 2
	askWindow      = 3
	overrideWindow = 4
)

// instructionLike reports whether normalised text s holds an instruction
// to the agent that drops a check or sets its instructions aside.
func instructionLike(s string) bool {
	stem := false
	for _, st := range instructionStems {
		if strings.Contains(s, st) {
			stem = true
			break
		}
	}
	if !stem {
		return false
	}
	words := strings.Fields(s)
	for i := range words {
		words[i] = strings.Trim(words[i], ",.;:!?\"()[]{}*")
	}
	within := func(i, n int, set map[string]bool) bool {
		for j := i + 1; j <= i+n && j < len(words); j++ {
			if set[words[j]] {
				return true
			}
		}
		return false
	}
	for i, w := range words {
		if overrides[w] && within(i, overrideWindow, overridden) {
			return true
		}
		if !negations[w] && (w != "not" || i == 0 || !negated[words[i-1]]) {
			continue
		}
		if within(i, negationWindow, checks) {
			return true
		}
		for j := i + 1; j <= i+negationWindow && j < len(words); j++ {
			if asks[words[j]] && within(j, askWindow, askFor) {
				return true
			}
		}
	}
	return false
}

// PermissionStatement reports whether a statement — its predicate, text or
// value — grants the agent a permission; such statements are refused on
// every write path (the API, extraction, import of agents' facts).
func PermissionStatement(predicate, text, value string) bool {
	return permissionPredicate(predicate) || PermissionLike(text) || PermissionLike(value)
}

// permissionPredicate reports whether a predicate names a permission.
func permissionPredicate(p string) bool {
	for _, w := range strings.Fields(permissionNorm(p)) {
		if permissionWords[w] {
			return true
		}
	}
	return PermissionLike(p)
}

func permissionNorm(s string) string {
	if n, ok := asciiPermissionNorm(s); ok {
		return n
	}
	s = strings.ToLower(s)
	s = permissionReplacer.Replace(s)
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	// Padding lets phrases with a trailing space match at the end.
	return " " + s + " "
}

// asciiPermissionNorm is permissionNorm for ASCII text in one pass; ok is
// false for any other text.
func asciiPermissionNorm(s string) (string, bool) {
	b := make([]byte, 1, len(s)+2)
	b[0] = ' '
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return "", false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '_' || c == '-' || c == ' ' || ('\t' <= c && c <= '\r'):
			c = ' '
		}
		if c == ' ' && b[len(b)-1] == ' ' {
			continue
		}
		b = append(b, c)
	}
	if len(b) == 1 {
		return "", true
	}
	if b[len(b)-1] != ' ' {
		b = append(b, ' ')
	}
	return string(b), true
}
