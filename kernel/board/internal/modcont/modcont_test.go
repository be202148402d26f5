// Tests of the module container decoder.
// SPDX-License-Identifier: BSD-3-Clause

package modcont

import (
	"encoding/binary"
	"testing"
)

func container(t testing.TB, mods ...[]byte) []byte { return Pack(mods...) }

// entry rewrites module i's table entry.
func entry(c []byte, i int, off, size uint64) []byte {
	binary.LittleEndian.PutUint64(c[modHeader+modEntry*i:], off)
	binary.LittleEndian.PutUint64(c[modHeader+modEntry*i+8:], size)
	return c
}

func TestModules(t *testing.T) {
	var out [Max]Module
	decode := func(c []byte) (int, string) { return Decode(c, uint64(len(c)), &out) }
	n, why := decode(container(t, []byte("args"), make([]byte, 5000)))
	if why != "" || n != 2 || out[0] != (Module{4096, 4}) || out[1] != (Module{8192, 5000}) {
		t.Fatalf("%d modules %+v: %s", n, out, why)
	}
	if n, why := decode(container(t)); why != "" || n != 0 {
		t.Errorf("empty container: %d, %s", n, why)
	}
	// An absent module (size 0) may sit anywhere.
	if n, why := decode(entry(container(t, []byte("a"), []byte("b")), 0, 3, 0)); why != "" || n != 2 || out[0] != (Module{}) {
		t.Errorf("absent module: %+v %s", out, why)
	}
	ok := func() []byte { return container(t, []byte("args"), []byte("root")) }
	bad := map[string][]byte{
		"short":          ok()[:15],
		"magic":          append([]byte("GMPOSMOd"), ok()[8:]...),
		"count":          func() []byte { c := ok(); c[8] = 5; return c }(),
		"reserved":       func() []byte { c := ok(); c[12] = 1; return c }(),
		"table past end": func() []byte { c := ok()[:40]; c[8] = 2; return c }(),
		"unaligned":      entry(ok(), 1, 4096+8, 4),
		"over the table": entry(ok(), 0, 0, 4),
		"past the end":   entry(ok(), 1, 8192, 4097),
		"offset huge":    entry(ok(), 1, 1<<63, 1),
		"size wraps":     entry(ok(), 1, 4096, ^uint64(0)-4095),
		"overlap":        entry(ok(), 1, 4096, 8),
	}
	for name, c := range bad {
		if _, why := decode(c); why == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	// Only the table is read: a container passed as its table and its size decodes alike.
	c := container(t, []byte("args"), []byte("root"))
	if n, why := Decode(c[:MaxTable], uint64(len(c)), &out); why != "" || n != 2 || out[1] != (Module{8192, 4}) {
		t.Errorf("from the table: %d %+v %s", n, out, why)
	}
	if _, why := Decode(c[:MaxTable], uint64(len(c)-1), &out); why == "" {
		t.Error("a module past the container's size")
	}
}

// FuzzModules: no table and container size make the decoder panic or accept a module outside
// the container, over the table, unaligned or overlapping another. The fuzzer varies the table
// and the size (a whole container is over 4 KiB of mostly nothing, slow to mutate).
func FuzzModules(f *testing.F) {
	c := container(f, []byte("args"), []byte("root"))
	f.Add(c[:48], uint64(len(c)))
	f.Add(container(f), uint64(16))
	f.Add(entry(c[:48], 1, 4096, 1), uint64(8192))
	f.Fuzz(func(t *testing.T, table []byte, size uint64) {
		var out [Max]Module
		n, why := Decode(table, size, &out)
		if why != "" {
			return
		}
		end := uint64(modHeader + modEntry*n)
		for i := 0; i < n; i++ {
			m := out[i]
			if m.Size == 0 {
				continue
			}
			if m.Off%modAlign != 0 || m.Off < end || m.Off+m.Size > size || m.Off+m.Size < m.Off {
				t.Fatalf("module %d %+v in %d bytes", i, m, size)
			}
			for j := 0; j < i; j++ {
				if o := out[j]; o.Size != 0 && m.Off < o.Off+o.Size && o.Off < m.Off+m.Size {
					t.Fatalf("modules %d and %d overlap", j, i)
				}
			}
		}
	})
}
