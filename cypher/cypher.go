package cypher

import (
	"embed"
	"io/fs"
	"strings"
)

// FS holds every statement file.
//
//go:embed *.cypher
var FS embed.FS

// Read returns the text of the statement file name ("facts_write.cypher").
func Read(name string) (string, error) {
	b, err := fs.ReadFile(FS, name)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// MustRead is Read for statements the program cannot run without; it
// panics if the file is missing, which a test of every name catches.
func MustRead(name string) string {
	s, err := Read(name)
	if err != nil {
		panic("cypher: " + err.Error())
	}
	return s
}

// Statements splits the file name into its statements: text separated by a
// semicolon that ends a line, with comment lines and blank statements
// dropped.
func Statements(name string) ([]string, error) {
	text, err := Read(name)
	if err != nil {
		return nil, err
	}
	var out []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for line := range strings.Lines(text) {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "//") {
			continue
		}
		if strings.HasSuffix(trimmed, ";") {
			cur.WriteString(strings.TrimSuffix(trimmed, ";"))
			flush()
			continue
		}
		cur.WriteString(line)
	}
	flush()
	return out, nil
}
