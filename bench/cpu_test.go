package bench

import (
	"runtime"
	"testing"
	"time"
)

// TestCPUMeter keeps one core busy and checks the meter counts about one
// core (more when the machine is busy with other work, never more than it
// has).
func TestCPUMeter(t *testing.T) {
	m := StartCPU()
	if !m.ok {
		t.Skip("no /proc/stat here")
	}
	for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); {
	}
	got := m.Cores()
	if got < 0.8 || got > float64(runtime.NumCPU())+0.05 {
		t.Fatalf("busy cores while one spun: %.2f of %d", got, runtime.NumCPU())
	}
}
