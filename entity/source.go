package entity

// SourceKind says where a statement came from; it decides how much a fact
// is trusted and whether it may act as a hard constraint.
type SourceKind string

// Source kinds.
const (
	UserExplicit  SourceKind = "user_explicit" // the user said it
	UserImplicit  SourceKind = "user_implicit" // implied by what the user said
	AgentInferred SourceKind = "agent_inferred"
	Tool          SourceKind = "tool"
	Import        SourceKind = "import"
)

// SourceKinds lists every valid source kind.
var SourceKinds = []SourceKind{UserExplicit, UserImplicit, AgentInferred, Tool, Import}

// Valid reports whether k is a known source kind.
func (k SourceKind) Valid() bool {
	for _, s := range SourceKinds {
		if s == k {
			return true
		}
	}
	return false
}

// rank orders source kinds by trust, used when claims of different kinds
// back one fact.
func (k SourceKind) rank() int {
	switch k {
	case UserExplicit:
		return 5
	case UserImplicit:
		return 4
	case Tool:
		return 3
	case Import:
		return 2
	case AgentInferred:
		return 1
	}
	return 0
}

// Stronger reports whether k is more trusted than o.
func (k SourceKind) Stronger(o SourceKind) bool { return k.rank() > o.rank() }
