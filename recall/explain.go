package recall

import (
	"encoding/json"
	"maps"
)

// Combining rules of an Explanation's children.
const (
	CombineSum     = "sum"
	CombineProduct = "product"
)

// Explanation is how a score was made, as a tree: a leaf is a measured
// value or a weight; a node with children combines them, in order, by
// Combine (a sum or a product) into its Value. The root's Value is the
// score, so every score can be rebuilt from its explanation (Rebuild).
// Inputs are what a node was measured from (a rank, a distance); they
// take no part in the arithmetic.
type Explanation struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Effect is what the node changes of its parent's value: a term of a
	// sum adds its value; a factor of a product changes the product by
	// Effect (the product less what it would be without the factor). The
	// root's Effect is its value.
	Effect   float64        `json:"effect"`
	Combine  string         `json:"combine,omitempty"`
	Inputs   Inputs         `json:"inputs,omitempty"`
	Children []*Explanation `json:"children,omitempty"`
	// Was is the explanation a score had before settle set it below
	// another's (Limits.Below); it takes no part in the value.
	Was *Explanation `json:"was,omitempty"`
}

// Input is a value a node was measured from.
type Input struct {
	Name  string
	Value float64
}

// Inputs are a node's inputs; they encode as one JSON object.
type Inputs []Input

// MarshalJSON encodes the inputs as an object of numbers by name.
func (in Inputs) MarshalJSON() ([]byte, error) {
	m := make(map[string]float64, len(in))
	for _, i := range in {
		m[i.Name] = i.Value
	}
	return json.Marshal(m)
}

// Get returns the input of that name (0 when there is none).
func (in Inputs) Get(name string) float64 {
	for _, i := range in {
		if i.Name == name {
			return i.Value
		}
	}
	return 0
}

// nodes hands out the nodes of explanations from blocks allocated a few
// at a time: scoring one query's candidates builds thousands of them. The
// zero value is ready to use.
type nodes struct {
	block []Explanation
	ptrs  []*Explanation
	ins   []Input
}

// blockSize is the size of the largest block of nodes.
const blockSize = 256

// grown is the size of the next block after one of size c: small for a
// few nodes, up to blockSize for many.
func grown(c int) int { return min(blockSize, max(8, 2*c)) }

func (n *nodes) node() *Explanation {
	if len(n.block) == cap(n.block) {
		n.block = make([]Explanation, 0, grown(cap(n.block)))
	}
	n.block = n.block[:len(n.block)+1]
	return &n.block[len(n.block)-1]
}

// leaf is a measured value or a weight, with what it was measured from.
func (n *nodes) leaf(name string, v float64, in ...Input) *Explanation {
	x := n.node()
	x.Name, x.Value = name, v
	return n.with(x, in...)
}

// with records what x was measured from.
func (n *nodes) with(x *Explanation, in ...Input) *Explanation {
	if len(in) == 0 {
		return x
	}
	if x.Inputs != nil {
		x.Inputs = append(x.Inputs, in...)
		return x
	}
	if cap(n.ins)-len(n.ins) < len(in) {
		n.ins = make([]Input, 0, max(grown(cap(n.ins)), len(in)))
	}
	k := len(n.ins)
	n.ins = append(n.ins, in...)
	x.Inputs = n.ins[k:len(n.ins):len(n.ins)]
	return x
}

// sum is the node adding its children in order (nil children left out).
func (n *nodes) sum(name string, children ...*Explanation) *Explanation {
	return n.combine(name, CombineSum, children)
}

// product is the node multiplying its children in order (nil children
// left out).
func (n *nodes) product(name string, children ...*Explanation) *Explanation {
	return n.combine(name, CombineProduct, children)
}

func (n *nodes) combine(name, how string, children []*Explanation) *Explanation {
	k := 0
	for _, c := range children {
		if c != nil {
			k++
		}
	}
	if cap(n.ptrs)-len(n.ptrs) < k {
		n.ptrs = make([]*Explanation, 0, max(2*grown(cap(n.ptrs)/2), k))
	}
	from := len(n.ptrs)
	for _, c := range children {
		if c != nil {
			n.ptrs = append(n.ptrs, c)
		}
	}
	x := n.node()
	x.Name, x.Combine = name, how
	if k > 0 {
		x.Children = n.ptrs[from:len(n.ptrs):len(n.ptrs)]
	}
	x.Value = x.fold()
	return x
}

// fold combines the children's values in order: the first child's value,
// then each next one added or multiplied, the way the scores are
// computed (so the value is the score's, bit for bit). No child: 0.
func (x *Explanation) fold() float64 {
	if len(x.Children) == 0 {
		return 0
	}
	v := x.Children[0].Value
	for _, c := range x.Children[1:] {
		if x.Combine == CombineProduct {
			v *= c.Value
		} else {
			v += c.Value
		}
	}
	return v
}

// Rebuild recomputes the value of the tree from its leaves, each node
// combining its children's rebuilt values by its rule; a leaf is its
// value.
func (x *Explanation) Rebuild() float64 {
	if x.Combine == "" {
		return x.Value
	}
	c := Explanation{Combine: x.Combine, Children: make([]*Explanation, len(x.Children))}
	for i, ch := range x.Children {
		c.Children[i] = &Explanation{Value: ch.Rebuild()}
	}
	return c.fold()
}

// finish sets every node's Effect, from the root down, and returns x
// (nil for nil).
func (x *Explanation) finish() *Explanation {
	if x == nil {
		return nil
	}
	x.Effect = x.Value
	x.effects()
	if x.Was != nil {
		x.Was.finish()
	}
	return x
}

func (x *Explanation) effects() {
	for _, c := range x.Children {
		if x.Combine == CombineSum {
			c.Effect = c.Value
		} else {
			without := &Explanation{Combine: CombineProduct}
			for _, o := range x.Children {
				if o != c {
					without.Children = append(without.Children, o)
				}
			}
			rest := 1.0
			if len(without.Children) > 0 {
				rest = without.fold()
			}
			c.Effect = x.Value - rest
		}
		c.effects()
	}
}

// Signals is the explanation flattened, as the API's signals show it:
// every node below the root by name with its value, and every input,
// rounded. A settled score's own signals (Was) are shown over those of
// the tree that set it below another's: they describe this hit.
func (x *Explanation) Signals() map[string]float64 {
	m := map[string]float64{}
	if x == nil {
		return m
	}
	var walk func(*Explanation)
	walk = func(n *Explanation) {
		for _, in := range n.Inputs {
			m[in.Name] = round(in.Value)
		}
		for _, c := range n.Children {
			m[c.Name] = round(c.Value)
			walk(c)
		}
	}
	walk(x)
	if x.Was != nil {
		maps.Copy(m, x.Was.Signals())
	}
	return m
}
