package recall

import (
	"testing"
	"time"
)

// TestLatencies_Wait: the wait for a question's vector is the margin over
// the 95th percentile of the last calls, within its bounds, and the upper
// bound until enough calls are timed.
func TestLatencies_Wait(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		calls []time.Duration
		want  time.Duration
	}{
		{"Cold", []time.Duration{20 * ms, 20 * ms}, maxVectorWait},
		{"Steady", repeat(20*ms, latencySamples), 30 * ms},
		{"FewOutliers", append(repeat(20*ms, latencySamples-3), 900*ms, 900*ms, 900*ms), 30 * ms},
		{"SlowTail", append(repeat(20*ms, latencySamples-8), repeat(200*ms, 8)...), 300 * ms},
		{"OnlyTheLastCount", append(repeat(900*ms, 100), repeat(100*ms, latencySamples)...), 150 * ms},
		{"Fast", repeat(ms, latencySamples), minVectorWait},
		{"Hanging", repeat(5*time.Second, warmSamples), maxVectorWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l latencies
			for _, d := range tc.calls {
				l.add(d)
			}
			if got := l.wait(); got != tc.want {
				t.Errorf("wait %v, want %v", got, tc.want)
			}
		})
	}
}

func repeat(d time.Duration, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}
