package search

import (
	"math"
	"time"

	"github.com/blevesearch/bleve/v2/numeric"
)

// bounds is what a query knows of the index's documents when it builds
// its exclusions: which facts may be flagged ended (flagged), the latest
// time of any document (latest, Unix milliseconds) and whether any may
// expire (expiring). Every query excluded future-dated and TTL-expired
// documents with numeric ranges, whose searchers cost more than the rest
// of a short query, in an index that mostly holds neither.
type bounds struct {
	flagged  time.Time
	latest   float64
	expiring bool
}

func (x *Index) bounds() bounds {
	return bounds{flagged: time.Unix(0, x.flagged.Load()), latest: float64(x.latest.Load()),
		expiring: x.expiring.Load()}
}

// future reports whether a document may be dated after asOf (ms).
func (b bounds) future(asOf float64) bool { return asOf < b.latest }

// same reports whether b and o build the same exclusions for a query as
// of asOf.
func (b bounds) same(o bounds, asOf float64) bool {
	return b.expiring == o.expiring && b.future(asOf) == o.future(asOf)
}

// note raises the bounds for a document about to be indexed, before it is
// visible: a query that could see it rebuilds its exclusions (Search).
func (x *Index) note(doc map[string]any) {
	if t, ok := doc[fTime].(float64); ok {
		for {
			old := x.latest.Load()
			if int64(t) <= old || x.latest.CompareAndSwap(old, int64(t)) {
				break
			}
		}
	}
	if _, ok := doc[fExpiresAt]; ok && !x.expiring.Load() {
		x.expiring.Store(true)
	}
}

// loadBounds reads the bounds of the documents an opened index holds from
// its term dictionaries: the greatest full-precision time, and whether any
// document has a TTL. Deleted documents may still count until their
// segment is merged, which only keeps an exclusion that could be left out.
func (x *Index) loadBounds() error {
	ai, err := x.bi.Advanced()
	if err != nil {
		return err
	}
	r, err := ai.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	latest := int64(math.MinInt64)
	d, err := r.FieldDictPrefix(fTime, []byte{numeric.ShiftStartInt64})
	if err != nil {
		return err
	}
	for e, err := d.Next(); e != nil || err != nil; e, err = d.Next() {
		if err != nil {
			d.Close()
			return err
		}
		if v, err := numeric.PrefixCoded(e.Term).Int64(); err == nil {
			latest = max(latest, int64(numeric.Int64ToFloat64(v)))
		}
	}
	if err := d.Close(); err != nil {
		return err
	}
	x.latest.Store(latest)
	d, err = r.FieldDict(fExpiresAt)
	if err != nil {
		return err
	}
	e, err := d.Next()
	if err != nil {
		d.Close()
		return err
	}
	x.expiring.Store(e != nil)
	return d.Close()
}
