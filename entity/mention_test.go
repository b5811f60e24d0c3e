package entity_test

import (
	"slices"
	"testing"

	"github.com/graphmem/graphmem/entity"
)

func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Hey Caroline! I went to the Grand Canyon with my kids last summer.",
			[]string{"caroline", "grand canyon", "kid", "summer"}},
		{"The payments-db moved to port 3307.", []string{"payments db", "moved", "port", "3307"}},
		{"Thanks, Mel. Sweden's winters are long.", []string{"mel", "sweden", "winter", "long"}},
		{"I love pottery classes; pottery is calming", []string{"pottery", "class", "calming"}},
		{"Wow. Just wow!", nil},
		{"We swam in Big Blue, and I loved it", []string{"swam", "big blue"}},
		{"Melanie's daughters painted sunsets", []string{"melanie", "daughter", "painted", "sunset"}},
	} {
		if got := entity.Mentions(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("Mentions(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
