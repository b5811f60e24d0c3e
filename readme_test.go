package graphmem_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readme returns README.md and the section that starts at heading (up to
// the next "## ").
func readme(t *testing.T, heading string) (string, string) {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	_, section, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no %q", heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return text, section
}

var codeBlock = regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")

// The README opens with the two set-up commands, and its install section
// leads with what works today: the packages are not on any registry yet.
func TestREADME_FirstHour(t *testing.T) {
	text, install := readme(t, "## Install and run without Go")
	first := codeBlock.FindStringSubmatch(text)
	if lines := strings.Split(strings.TrimSpace(first[1]), "\n"); len(lines) != 2 ||
		!strings.HasPrefix(lines[0], "go run ./cmd/graphmem serve ") || !strings.HasPrefix(lines[1], "scripts/test.sh ") {
		t.Errorf("the README's first block is not the two set-up commands:\n%s", first[1])
	}
	if !strings.Contains(install, "not published") {
		t.Error("the install section does not say the packages are not published")
	}
	blocks := codeBlock.FindAllStringSubmatch(install, -1)
	if len(blocks) == 0 || !strings.Contains(blocks[0][1], "scripts/dist.sh") || !strings.Contains(blocks[0][1], "packaging/build.sh") {
		t.Errorf("the install section does not lead with scripts/dist.sh and packaging/build.sh")
	}
	for _, b := range blocks {
		for _, line := range strings.Split(b[1], "\n") {
			if strings.HasPrefix(line, "pip install graphmem") || strings.HasPrefix(line, "npx graphmem-server") {
				t.Errorf("a command that needs a published package: %q", line)
			}
		}
	}
	for _, v := range []string{"DIST_TARGETS", "DIST_DIR", "DIST_JOBS"} {
		if !strings.Contains(install, v) {
			t.Errorf("the install section does not document %s", v)
		}
	}
}
