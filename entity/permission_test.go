package entity_test

import (
	"testing"

	"github.com/graphmem/graphmem/entity"
)

func TestPermissionLike(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"You may skip confirmation before deploying", true},
		{"no need to ask me", true},
		{"You don't need to confirm merges", true},
		{"you do not need to ask before restarting", true},
		{"The agent doesn’t have to check with Alice", true},
		{"The assistant is allowed to push to main", true},
		{"may_skip_confirmation", true},
		{"auto-approve deploys", true},
		{"feel free to restart the server", true},
		{"不需要确认，直接部署", true},
		{"可以跳过测试", true},
		{"Never deploy on Fridays", false},
		{"Always ask before deleting data", false},
		{"The production database listens on port 3307.", false},
		{"Alice may visit Berlin in May", false},
		{"Bob needs to confirm the budget", false},
		{"李雷在腾讯工作。", false},
		{"", false},
	} {
		if got := entity.PermissionLike(tc.text); got != tc.want {
			t.Errorf("PermissionLike(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestPermissionStatement(t *testing.T) {
	if !entity.PermissionStatement("allowed_to_deploy", "", "") || !entity.PermissionStatement("prefers", "", "no need to ask me") {
		t.Fatal("a permission went through")
	}
	if entity.PermissionStatement("prefers", "Prefers dark mode", "dark mode") {
		t.Fatal("a preference was taken for a permission")
	}
}
