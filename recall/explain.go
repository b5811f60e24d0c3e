package recall

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
	Effect   float64            `json:"effect"`
	Combine  string             `json:"combine,omitempty"`
	Inputs   map[string]float64 `json:"inputs,omitempty"`
	Children []*Explanation     `json:"children,omitempty"`
	// Was is the explanation a score had before settle set it below
	// another's (Limits.Below); it takes no part in the value.
	Was *Explanation `json:"was,omitempty"`
}

// leaf is a measured value or a weight.
func leaf(name string, v float64) *Explanation { return &Explanation{Name: name, Value: v} }

// sum is the node adding its children in order (nil children left out).
func sum(name string, children ...*Explanation) *Explanation {
	return combine(name, CombineSum, children)
}

// product is the node multiplying its children in order (nil children
// left out).
func product(name string, children ...*Explanation) *Explanation {
	return combine(name, CombineProduct, children)
}

func combine(name, how string, children []*Explanation) *Explanation {
	x := &Explanation{Name: name, Combine: how}
	for _, c := range children {
		if c != nil {
			x.Children = append(x.Children, c)
		}
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

// input records a value the node was measured from.
func (x *Explanation) input(name string, v float64) *Explanation {
	if x.Inputs == nil {
		x.Inputs = map[string]float64{}
	}
	x.Inputs[name] = v
	return x
}

// Rebuild recomputes the value of the tree from its leaves, each node
// combining its children's rebuilt values by its rule; a leaf is its
// value.
func (x *Explanation) Rebuild() float64 {
	if x.Combine == "" {
		return x.Value
	}
	c := *x
	c.Children = make([]*Explanation, len(x.Children))
	for i, ch := range x.Children {
		c.Children[i] = leaf(ch.Name, ch.Rebuild())
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
// rounded (those of Was too, unless the tree names them).
func (x *Explanation) Signals() map[string]float64 {
	m := map[string]float64{}
	if x == nil {
		return m
	}
	if x.Was != nil {
		m = x.Was.Signals()
	}
	var walk func(*Explanation)
	walk = func(n *Explanation) {
		for k, v := range n.Inputs {
			m[k] = round(v)
		}
		for _, c := range n.Children {
			m[c.Name] = round(c.Value)
			walk(c)
		}
	}
	walk(x)
	return m
}
