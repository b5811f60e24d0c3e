package eval

import "github.com/graphmem/graphmem/recall"

// weightsWith is recall's default weights with the given episode weights,
// and vector weights when vw is set.
func weightsWith(ep recall.EpisodeWeights, vw *recall.VectorWeights) *recall.Weights {
	w := recall.DefaultWeights()
	w.Episode = ep
	if vw != nil {
		w.Vector = *vw
	}
	return &w
}
