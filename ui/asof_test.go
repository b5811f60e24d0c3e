package ui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAsOfParam runs the web view's asOfParam (assets/core.js) under
// Node, when it is installed: a time the API would refuse is null — the
// page shows an error — never a date the browser guessed.
func TestAsOfParam(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	core, err := filepath.Abs("assets/core.js")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"":                            "",
		"2024-03-01":                  "2024-03-01T00:00:00Z",
		" 2024-02-29 ":                "2024-02-29T00:00:00Z",
		"2024-03-01T09:30:00Z":        "2024-03-01T09:30:00Z",
		"2024-03-01T09:30:00.5+02:00": "2024-03-01T09:30:00.5+02:00",
		"garbage 1":                   "null", // Date.parse: 2001-01-01
		"x 2024":                      "null", // Date.parse: 2024-01-01
		"2024-02-30":                  "null", // Date.parse: 2024-03-01
		"2023-02-29":                  "null",
		"2024-03-01T24:00:00Z":        "null",
		"0999-12-31":                  "null",
		"March 2024":                  "null",
	}
	var script strings.Builder
	script.WriteString("import { asOfParam } from " + jsString("file://"+core) + ";\n")
	for in := range cases {
		script.WriteString("console.log(JSON.stringify([" + jsString(in) + ", asOfParam(" + jsString(in) + ")]));\n")
	}
	file := filepath.Join(t.TempDir(), "asof.mjs")
	if err := os.WriteFile(file, []byte(script.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, file).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		in, got, _ := strings.Cut(strings.Trim(line, "[]"), ",")
		want := cases[strings.Trim(in, `"`)]
		if strings.Trim(got, `"`) != want {
			t.Errorf("asOfParam(%s) = %s, want %s", in, got, want)
		}
	}
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
