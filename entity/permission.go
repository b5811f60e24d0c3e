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
	return containsPhrase(permissionNorm(text))
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
