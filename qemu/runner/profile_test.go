package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/pprof/profile"
)

// TestWriteProfile symbolizes records against a real Go binary (testdata/hello): a user sample in main.main, a
// kernel sample above it, an idle sample, a BKL wait over the work that waited.
func TestWriteProfile(t *testing.T) {
	dir := t.TempDir()
	exe, mainAddr := buildHello(t)
	recs := []Record{
		{Kind: "prof-hz", Text: "100"},
		{Kind: "prof", Text: fmt.Sprintf("user 0 1 1 0x%x", mainAddr+4)},
		{Kind: "prof", Text: fmt.Sprintf("futex 1 1 2 0x%x 0x%x", mainAddr+8, mainAddr+12)},
		{Kind: "prof", Text: "idle 1 0 0"},
		{Kind: "prof", Text: fmt.Sprintf("bkl-wait/madvise 0 1 1 0x%x", mainAddr+4)},
		{Kind: "prof-lost", Text: "3"},
	}
	out := filepath.Join(dir, "p.pb.gz")
	st, err := WriteProfile(out, recs, exe, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Samples != 4 || st.User != 1 || st.Kernel != 2 || st.Idle != 1 || st.Lost != 3 || st.Hz != 100 {
		t.Errorf("stats %+v", st)
	}
	r, _ := os.Open(out)
	defer r.Close()
	p, err := profile.Parse(r)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(i int) string { return p.Sample[i].Location[0].Line[0].Function.Name }
	if leaf(0) != "main.main" || leaf(1) != "[kernel] futex" || leaf(2) != "[idle]" {
		t.Errorf("leaves %q %q %q", leaf(0), leaf(1), leaf(2))
	}
	if p.Period != 10_000_000 || p.Sample[1].Location[1].Line[0].Function.Name != "main.main" {
		t.Errorf("period %d, kernel sample's caller %v", p.Period, p.Sample[1].Location[1].Line)
	}
	var names []string
	for _, l := range p.Sample[3].Location {
		names = append(names, l.Line[0].Function.Name)
	}
	if fmt.Sprint(names) != "[[kernel] bkl-wait [kernel] madvise main.main]" {
		t.Errorf("BKL wait's stack %q", names)
	}
	// A record before prof-hz, or a malformed one, is an error, not a wrong profile.
	for _, bad := range [][]Record{
		{{Kind: "prof", Text: "user 0 1 1 0x10"}},
		{{Kind: "prof-hz", Text: "100"}, {Kind: "prof", Text: "user 0 1 1 10"}},
		{{Kind: "prof-hz", Text: "0"}},
		{{Kind: "prof-hz", Text: "100"}, {Kind: "prof", Text: "bkl-wait/ 0 0 0"}},
		{{Kind: "prof-hz", Text: "100"}, {Kind: "prof", Text: "bkl-wait/a/b 0 0 0"}},
		{},
	} {
		if _, err := WriteProfile(filepath.Join(dir, "bad.pb.gz"), bad, exe, ""); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}

// FuzzParseProfRecord: guest output decodes to a record or an error, never a panic, and what it
// accepts has the documented shape.
func FuzzParseProfRecord(f *testing.F) {
	f.Add("user 0 1 1 0x1234 0x5678")
	f.Add("futex 3 0 0")
	f.Add("idle 1 0 0 0x")
	f.Add("bkl-wait/futex 0 1 1 0x10")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseProfRecord(s)
		if err != nil {
			return
		}
		if r.Kind == "" || r.CPU < 0 || r.CPU > 255 || r.PID < 0 || r.TID < 0 || len(r.PCs) > 64 {
			t.Fatalf("%q → %+v", s, r)
		}
		for _, pc := range r.PCs {
			if pc == 0 {
				t.Fatalf("%q: a zero pc", s)
			}
		}
	})
}
