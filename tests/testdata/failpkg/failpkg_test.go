package failpkg

import (
	"os"
	"testing"
)

func TestPasses(t *testing.T) {
	if Double(2) != 4 {
		t.Fatal("Double(2) != 4")
	}
}

// TestFails fails unless FAILPKG_PASS is set, so that the caller picks the verdict.
func TestFails(t *testing.T) {
	if os.Getenv("FAILPKG_PASS") == "" {
		t.Fatal("failing on purpose")
	}
}
