package client_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOnlyAClient: the client imports none of the server's packages, so a
// program that only calls graphmem does not build the server into itself.
func TestOnlyAClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	const mod = "github.com/graphmem/graphmem/"
	allowed := map[string]bool{mod + "client": true, mod + "api/wire": true, mod + "entity": true}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, mod) && !allowed[p] {
			t.Errorf("the client imports %s", p)
		}
	}
}
