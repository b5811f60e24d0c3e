package eval

import (
	"encoding/json"
	"os"

	"github.com/graphmem/graphmem/entity"
	"github.com/graphmem/graphmem/recall"
)

// TunedWeights are the weights graphmem eval tune fits, in the shape of
// the episode and vector parts of recall's weights file.
type TunedWeights struct {
	Episode recall.EpisodeWeights `json:"episode"`
	Vector  recall.VectorWeights  `json:"vector"`
}

// ReadWeights reads a weights file; a part it leaves out keeps its
// defaults.
func ReadWeights(path string) (TunedWeights, error) {
	w := TunedWeights{Episode: recall.DefaultEpisodeWeights, Vector: recall.DefaultVectorWeights}
	b, err := os.ReadFile(path)
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return w, entity.Errorf(entity.EINVALID, "%s: %v", path, err)
	}
	return w, nil
}
